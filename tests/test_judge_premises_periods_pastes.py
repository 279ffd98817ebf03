"""Rules the dev halves of en_heldout_10 and zh_heldout_11 (the third round, measured before any rule) showed
missing (7 December, fourth round; docs/method.md §4): a negation in what a Chinese question takes as given
is not what it asks, and a quoted term or a law's title negates nothing; a ruling on a submission named
after the court's own finding does not answer for it; "had been found" in a submission is no finding of the
court; a sum cut at a half-width comma after its digits is read to its 元; a bare Yes/No followed by framing
answers the question; a submission named with no ruling takes no position on how it was met; a period is
asked by 期间 and answered by a span or a length, not a single date; "what was the name of X's Y" asks who,
and a role the case title gives a party the question names is that party; "what did the court do with"
asks for an order; a passage's sentence copied whole is another item's answer, not a contradiction (the dev
half of en_heldout_11 too:) a count asked is not offered by a date, a cut paste counts what it pasted whole
but not a number whose noun never came, an age is offered only by an age (and of en_heldout_12:) a question
on what a party said is answered by its submission.
Hand-built records, hand-checked labels (none of them is a validation item)."""

from __future__ import annotations

from judge_cases import label, qa

from pipeline.records import Passage

BUS = Passage(
    "bs/p4", "bs", "bs", "《魏某与某公交公司客运合同纠纷一审民事判决书》",
    "本院认为,承运人应当对运输过程中旅客的伤亡承担赔偿责任。原告站立于车厢中部,即便未握紧扶手,亦不构成重大过失,"
    "被告关于原告自行承担30%责任的抗辩,本院不予支持。",
)
GROSS_FAULT = qa("p-fault", "在《魏某与某公交公司客运合同纠纷一审民事判决书》中，原告未握紧扶手是否构成重大过失?", "否", BUS,
                 kind="yesno", facts=["No"])


def test_a_negation_the_question_takes_as_given_is_not_what_it_asks():
    right = label("否。原告站立于车厢中部,即便未握紧扶手,亦不构成重大过失。", GROSS_FAULT, (BUS,))
    assert (right.faithfulness, right.correctness) == ("fully_supported", "correct")
    wrong = label("是。原告站立于车厢中部,即便未握紧扶手,亦不构成重大过失。", GROSS_FAULT, (BUS,))
    assert (wrong.faithfulness, wrong.correctness) == ("contradicted", "incorrect")


TRAINING = Passage(
    "tr/p3", "tr", "tr", "《毛某与某教育科技有限公司教育培训合同纠纷一审民事判决书》",
    "经审理查明：“已付费用概不退还”条款系被告提供的格式条款，未以加粗等方式提示原告注意。",
)
BOLD = qa("p-bold", "在《毛某与某教育科技有限公司教育培训合同纠纷一审民事判决书》中，被告是否以加粗等方式提示原告注意“已付费用概不退还”"
          "条款？", "否", TRAINING, kind="yesno", facts=["No"])


def test_a_quoted_term_negates_nothing():
    got = label("否。“已付费用概不退还”条款系被告提供的格式条款，未以加粗等方式提示原告注意。", BOLD, (TRAINING,))
    assert (got.faithfulness, got.correctness) == ("fully_supported", "correct")
    wrong = label("是。“已付费用概不退还”条款系被告提供的格式条款，未以加粗等方式提示原告注意。", BOLD, (TRAINING,))
    assert wrong.faithfulness == "contradicted"


FRACTURE = Passage(
    "fr/p10", "fr", "fr", "HCPI 77/2023 Ng Ka-yiu v Evergreen Union Hospital Limited and Cheng Yik-mun",
    "The defendants submitted that the fracture would not have united even if it had been found on 7 February "
    "2021. That submission is rejected: the expert evidence, which I prefer, is that with early casting over 90% "
    "of such fractures unite.",
)
UNITED = qa("p-unite", "Did the court accept Evergreen Union Hospital Limited's submission that Mr Ng's fracture would "
            "not have united even if diagnosed on 7 February 2021?", "No", FRACTURE, kind="yesno", facts=["No"])


def test_a_thing_that_had_been_found_is_the_submissions_narrative_not_a_finding():
    quote = ("The defendants submitted that the fracture would not have united even if it had been found on 7 "
             "February 2021. That submission is rejected.")
    wrong = label(f"Yes. {quote}", UNITED, (FRACTURE,), "en")
    assert (wrong.faithfulness, wrong.correctness) == ("contradicted", "incorrect")
    right = label(f"No. {quote}", UNITED, (FRACTURE,), "en")
    assert (right.faithfulness, right.correctness) == ("fully_supported", "correct")


BEAUTY = Passage(
    "bt/p10", "bt", "bt", "《苗某与某医疗美容门诊部有限公司医疗美容服务合同纠纷一审民事判决书》",
    "判决如下:一、被告于本判决生效之日起十日内支付原告苗某赔偿金人民币壹拾万零捌仟元整(108,000元);二、驳回原告苗某的其他诉讼请求。",
)
DAMAGES = qa("p-dmg", "在《苗某与某医疗美容门诊部有限公司医疗美容服务合同纠纷一审民事判决书》中，法院判决被告支付原告多少赔偿金?",
             "人民币壹拾万零捌仟元整(108,000元)", BEAUTY)


def test_a_sum_cut_at_a_comma_after_its_digits_is_read_to_its_yuan():
    got = label("判决如下:一、被告于本判决生效之日起十日内支付原告苗某赔偿金人民币壹拾万零捌仟元整(108,", DAMAGES, (BEAUTY,),
                finish="length")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


INSURANCE = Passage(
    "in/p5", "in", "in", "《黄某诉某财产保险股份有限公司保险合同纠纷一审民事判决书》",
    "本院认为，评估费系原告为查明损失支出的必要费用，原告要求被告支付评估费2,000元的请求，本院予以支持。",
)
APPRAISAL = qa("p-fee", "在《黄某诉某财产保险股份有限公司保险合同纠纷一审民事判决书》中，本院是否支持原告要求支付评估费的请求?", "是",
               INSURANCE, kind="yesno", facts=["Yes"])


def test_a_yes_followed_by_framing_only_answers_the_question():
    got = label("是。通读上述段落，答案的依据如下。", APPRAISAL, (INSURANCE,))
    assert (got.behaviour, got.correctness) == ("attempted", "correct")
    cut = label("是。通读上述段落，答案的依据如下。被告于本判决生效之日起十日内支付原告黄某保险金42,", APPRAISAL, (INSURANCE,),
                finish="length")
    assert (cut.behaviour, cut.correctness) == ("attempted", "correct")


ADVICE = Passage(
    "ad/p4", "ad", "ad", "《蔡某与某投资管理有限公司委托理财合同纠纷一审民事判决书》",
    "本院认为,被告违反协议约定的持仓比例限制,对损失扩大存在过错,其关于亏损全部属于正常投资风险、应由原告自行承担的抗辩,本院不予支持。",
)
DEFENCE = qa("p-def", "在《蔡某与某投资管理有限公司委托理财合同纠纷一审民事判决书》中，法院对被告关于亏损全部属于正常投资风险的抗辩如何处理?",
             "不予支持", ADVICE)


def test_a_submission_named_with_no_ruling_takes_no_position_on_how_it_was_met():
    assert label("其关于亏损全部属于正常投资风险、应由原告自行承担的抗辩。", DEFENCE, (ADVICE,)).behaviour == "unusable"
    got = label("其关于亏损全部属于正常投资风险的抗辩，本院不予支持。", DEFENCE, (ADVICE,))
    assert (got.behaviour, got.correctness) == ("attempted", "correct")


ADVERT = Passage(
    "av/p3", "av", "av", "《苏某与某健身服务有限公司肖像权纠纷一审民事判决书》",
    "经审理查明:2022年3月1日至2022年9月30日,被告在其微信公众号发布推广广告,使用原告照片共6张。上述广告已于2022年10月删除。",
)
PERIOD = qa("p-period", "在《苏某与某健身服务有限公司肖像权纠纷一审民事判决书》中，被告发布推广广告的期间是什么?",
            "2022年3月1日至2022年9月30日", ADVERT)


def test_a_period_is_answered_by_a_span_not_by_a_single_date():
    assert label("被告在其微信公众号发布推广广告。上述广告已于2022年10月删除。", PERIOD, (ADVERT,)).behaviour == "unusable"
    got = label("2022年3月1日至2022年9月30日,被告在其微信公众号发布推广广告。", PERIOD, (ADVERT,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


BOND = Passage(
    "bd/p1", "bd", "bd", "HCA 880/2024 Kam Tai Engineering Limited v Wonder Crest Development Limited and Sunwah "
    "Commercial Bank Limited",
    "On 3 October 2024 the first defendant demanded the full amount of the bond. The demand was made two days after "
    "the first defendant's new managing director took office.",
)
DIRECTOR = qa("p-md", "What was the name of Wonder Crest Development Limited's new managing director?", "", BOND, facts=[])


def test_a_role_the_title_gives_the_party_asked_names_no_one_else():
    got = label('Passage [1] states: "The demand was made two days after the first defendant\'s new managing director '
                'took office."', DIRECTOR, (BOND,), "en")
    assert got.behaviour == "unusable"
    # A name the question does not hold is offered for the one asked (one no passage gives).
    named = label("Mr Lee Chi-wai became the first defendant's new managing director.", DIRECTOR, (BOND,), "en")
    assert (named.behaviour, named.faithfulness) == ("attempted", "unsupported")


TAXI = Passage(
    "tx/p5", "tx", "tx", "HCAL 918/2024 Kwan Siu-lung v Commissioner for Transport",
    "The court reviews the lawfulness of the decision; whether the applicant is fit and proper remains for the "
    "Commissioner. The decision of 2 August 2024 is quashed and the matter remitted to the Commissioner.",
)
DISPOSAL = qa("p-do", "What did the court do with the Commissioner for Transport's decision in HCAL 918/2024?",
              "quashed and the matter remitted to the Commissioner", TAXI)


def test_what_the_court_did_with_a_decision_asks_for_an_order():
    role = label("The court reviews the lawfulness of the decision; whether the applicant is fit and proper remains for "
                 "the Commissioner.", DISPOSAL, (TAXI,), "en")
    assert role.behaviour == "unusable"
    got = label("The decision of 2 August 2024 is quashed and the matter remitted to the Commissioner.", DISPOSAL, (TAXI,), "en")
    assert (got.behaviour, got.correctness) == ("attempted", "correct")


PARTITION = Passage(
    "pt/p2", "pt", "pt", "《冯x3与冯1、冯x7分家析产纠纷一审民事判决书》",
    "原告冯x3向本院提出诉讼请求:判令被告一向原告支付房屋征收补偿款280,000元。事实和理由:2022年9月,该房屋被征收,补偿款人民币捌拾肆万元整"
    "(840,000元)全部由登记户主被告一领取。",
)
TOTAL = qa("p-total", "在《冯x3与冯1、冯x7分家析产纠纷一审民事判决书》中，房屋征收补偿款共计多少?", "人民币捌拾肆万元整(840,000元)",
           PARTITION)


PARTITION_ORDER = Passage(
    "pt/p5", "pt", "pt", "《冯x3与冯1、冯x7分家析产纠纷一审民事判决书》",
    "判决如下:一、被告一冯1于本判决生效之日起十五日内向原告冯x3支付房屋征收补偿款人民币贰拾肆万元整(240,000元);二、被告一冯1于本判决"
    "生效之日起十五日内向被告二冯x7支付房屋征收补偿款人民币壹拾捌万元整(180,000元);三、驳回原告冯x3的其他诉讼请求。",
)


def test_a_passage_sentence_copied_whole_is_another_items_answer_not_a_contradiction():
    pasted = label("通读上述段落，答案的依据如下。原告冯x3向本院提出诉讼请求:判令被告一向原告支付房屋征收补偿款280,000元。二、被告一冯1于"
                   "本判决生效之日起十五日内向被告二冯x7支付房屋征收补偿款人民币壹拾捌万元整(180,000元);", TOTAL,
                   (PARTITION, PARTITION_ORDER))
    assert (pasted.behaviour, pasted.faithfulness, pasted.correctness) == ("attempted", "unsupported", "incorrect")
    # Said in the reply's own words, the other figure for the item asked is contradicted.
    stated = label("房屋征收补偿款共计280,000元。", TOTAL, (PARTITION,))
    assert stated.faithfulness == "contradicted"



STALL = Passage(
    "st/p1", "st", "st", "HKSAR v Chow Siu-kei and Yu Lok-hang",
    "On 14 March 2024 customs officers made a test purchase at a stall run by the first defendant, and then searched "
    "it. They seized 312 handbags and 188 wallets bearing the marks of a French fashion house. In HKSAR v Siu "
    "Yat-fung the court refused a retrial because 14 months had passed and the fine of $2,000 had been paid. The "
    "second defendant, aged 23, was paid $14,000 a month.",
)
HANDBAGS = qa("p-bags", "How many handbags did customs officers seize from the stall run by Chow Siu-kei?", "312", STALL)
AGE = qa("p-age", "How old is Yu Lok-hang, the second defendant in HKSAR v Chow Siu-kei and Yu Lok-hang?", "23", STALL)


def test_a_count_asked_is_not_offered_by_a_date():
    got = label('Passage [1] states: "On 14 March 2024 customs officers made a test purchase at a stall run by the first '
                'defendant, and then searched it."', HANDBAGS, (STALL,), "en")
    assert got.behaviour == "unusable"


def test_a_cut_paste_counts_what_it_pasted_whole_and_not_a_number_whose_noun_never_came():
    got = label("Reading the passages, the answer rests on the following. On 14 March 2024 customs officers made a test "
                "purchase at a stall run by the first defendant, and then searched it. They seized 312 handbags and 188",
                HANDBAGS, (STALL,), "en", finish="length")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


def test_an_age_asked_is_offered_only_by_an_age():
    got = label("In HKSAR v Siu Yat-fung the court refused a retrial because 14 months had passed and the fine of $2,000 "
                "had been paid.", AGE, (STALL,), "en")
    assert got.behaviour == "unusable"
    aged = label("The second defendant, aged 23, was paid $14,000 a month.", AGE, (STALL,), "en")
    assert (aged.behaviour, aged.correctness) == ("attempted", "correct")


FRIENDLY_LOAN = Passage(
    "fl/p1", "fl", "fl", "DCCJ 2231/2023 Chu Siu-wah v Wan Chi-keung",
    "The completion of the sub-contract works was certified; the sub-contract sum was $86,000, with 5% retention. "
    "The plaintiff, for her part, submitted that the defendant had orally agreed to "
    "pay interest at 10% a year. I am not satisfied of any such agreement, and the claim for contractual interest fails.",
)
SAID_RATE = qa("p-said", "At what rate did Ms Chu Siu-wah say Mr Wan had orally agreed to pay interest?", "10% a year",
               FRIENDLY_LOAN)


def test_a_question_on_what_a_party_said_is_answered_by_its_submission():
    got = label("The plaintiff, for her part, submitted that the defendant had orally agreed to pay interest at 10% a year.",
                SAID_RATE, (FRIENDLY_LOAN,), "en")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")

