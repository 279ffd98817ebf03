"""Rules the dev half of fresh runs of the held-out fixtures showed missing (6 December, third round;
docs/method.md §4): a Chinese sentence gathering parties under a count (二公司, 三被告人) is about each of
them; the sentence an answering one concludes from (故……) is the court's reason for the answer and so on
the item; an English yes/no question is answered only by a sentence on what it asks whether, not by one
sharing its roles ("the defendant"); to a question the set marks impossible, a sum offered beside what the
reply says of the item asked is a position, a sum pasted on another matter none; a Chinese sentence naming
its subject in its first clause names it for what the clauses after it say. Hand-built records,
hand-checked labels (none of them is a validation item)."""

from __future__ import annotations

from judge_cases import label, qa

from pipeline.matching import parties as pt
from pipeline.records import Passage

WAGES = Passage(
    "wa/p3", "wa", "wa", "何x2与熊某、武汉某劳务有限公司、湖北某建设集团有限公司劳务合同纠纷一审民事判决书",
    "本院认为:二原告为熊某提供劳务,熊某应按结算单支付欠付的劳务报酬。被告湖北某建设集团有限公司注册资本为5,000万元。"
    "被告武汉某劳务有限公司将劳务作业交由不具备合法经营资格的个人组织施工,应承担清偿责任;"
    "被告湖北某建设集团有限公司作为施工总承包单位,应先行清偿。故二公司对熊某的上述债务承担连带清偿责任。",
)
JOINT = qa("c-joint", "被告湖北某建设集团有限公司是否需对欠付的劳务报酬承担连带清偿责任?", "是", WAGES, kind="yesno",
           facts=["Yes"])


def test_a_count_of_parties_gathers_those_its_passage_names():
    companies = pt.gathered("故二公司对熊某的上述债务承担连带清偿责任。", WAGES.text)
    assert sorted(companies, key=sorted) == [frozenset({"某劳务有限公司"}), frozenset({"某建设集团有限公司"})]
    accused = pt.gathered("三被告人的家属共退赔被害单位28,600元。", "被告人邱0、韦x5共谋后盗窃电缆。被告人蓝x2受邀望风。")
    assert accused == [frozenset({"邱", "0"}), frozenset({"韦", "x5"}), frozenset({"蓝", "x2"})]
    # An ordinal names one party, not a count of them; nor does 该公司 gather any.
    assert pt.gathered("第二被告应当赔偿。", "被告:李某。被告:王某某。") == []
    assert pt.gathered("该公司应当赔偿。", WAGES.text) == []


def test_the_sentence_a_ruling_concludes_from_supports_a_yes():
    got = label("是。被告湖北某建设集团有限公司作为施工总承包单位,应先行清偿。", JOINT, (WAGES,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


def test_a_true_sentence_the_ruling_does_not_conclude_from_supports_no_yes():
    # The company's capital is said two sentences before the ruling, and nothing concludes from it.
    got = label("是。被告湖北某建设集团有限公司注册资本为5,000万元。", JOINT, (WAGES,))
    assert (got.behaviour, got.faithfulness) == ("attempted", "unsupported")


CONVICTIONS = Passage(
    "cv/p5", "cv", "cv", "HKSAR v Lam Wing-kei and Ho Chi-keung",
    "As stated in HKSAR v Shum Chi-wai, the court must first identify what the defendant himself knew of the "
    "circumstances. The second defendant, Ho Chi-keung, has a clear record.",
)
PREVIOUS = qa("c-prev", "In HKSAR v Lam Wing-kei and Ho Chi-keung, did the second defendant have any previous convictions?",
              "No", CONVICTIONS, kind="yesno", facts=["No"])
POSSESSION = Passage(
    "po/p4", "po", "po", "Kwan Estates Limited v Chow Wing-kei",
    "The court granted Kwan Estates Limited possession of Flat B, 6/F, 139 Lockhart Road, to take effect 14 days "
    "after the date of this order.",
)
BACK = qa("c-back", "Can Kwan Estates Limited get the premises back from Chow Wing-kei?", "Yes", POSSESSION,
          kind="yesno", facts=["Yes"])


def test_a_sentence_sharing_only_the_questions_role_answers_no_yes_no_question():
    got = label("As stated in HKSAR v Shum Chi-wai, the court must first identify what the defendant himself knew of "
                "the circumstances.", PREVIOUS, (CONVICTIONS,), lang="en")
    assert got.behaviour == "unusable"


def test_a_sentence_on_the_party_asked_in_other_words_answers_it():
    got = label("The court granted Kwan Estates Limited possession of Flat B, 6/F, 139 Lockhart Road.", BACK,
                (POSSESSION,), lang="en")
    assert got.behaviour == "attempted"


COSTS = Passage(
    "co/p10", "co", "co", "DCPI 1876/2022 Tang Wai-yee v Grandview Plaza Management Limited",
    "There will be judgment for the plaintiff for $352,000, being 80% of $440,000. The defendant shall pay the "
    "plaintiff's costs, to be taxed if not agreed.",
)
COSTS_AWARDED = qa("c-costs", "In DCPI 1876/2022 Tang Wai-yee v Grandview Plaza Management Limited, what amount of costs "
                   "was the plaintiff awarded?", "", COSTS, facts=[])
LOAN = Passage(
    "ln/p2", "ln", "ln", "某银行与周x3金融借款合同纠纷一审民事判决书",
    "合同签订后,原告于2018年6月12日依约向被告发放贷款300,000元。被告此后未按约还款。",
)
MEDICAL = qa("c-medical", "在《孙0与周x3物业服务合同纠纷一审民事判决书》中，原告花了多少医疗费?", "", LOAN, facts=[])


def test_a_sum_offered_beside_the_item_asked_answers_an_impossible_amount_question():
    got = label("The defendant shall pay the plaintiff's costs, to be taxed if not agreed. There will be judgment for "
                "the plaintiff for $352,000.", COSTS_AWARDED, (COSTS,), lang="en")
    assert (got.behaviour, got.correctness) == ("attempted", "incorrect")


def test_a_sum_pasted_on_another_matter_answers_no_impossible_amount_question():
    got = label("原告于2018年6月12日依约向被告发放贷款300,000元。", MEDICAL, (LOAN,))
    assert got.behaviour == "unusable"


THEFT = Passage(
    "th/p3", "th", "th", "（2021）桂0102刑初418号 邱0、韦x5盗窃罪一审刑事判决书",
    "经审理查明：2021年4月至5月间，被告人邱0、韦x5共谋后，先后三次在南宁市兴宁区某工地盗窃电缆，共计盗得电缆价值人民币28,600元。",
)
FENCE = qa("c-fence", "在（2021）桂0102刑初418号案中，被盗电缆被销赃给了谁?", "", THEFT, facts=[])


def test_a_subject_named_in_the_first_clause_is_named_for_what_follows():
    got = label("被告人邱0、韦x5共谋后，先后三次在南宁市兴宁区某工地盗窃电缆。", FENCE, (THEFT,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "unsupported", "incorrect")


def test_a_sentence_naming_no_one_names_no_one_for_a_who_question():
    got = label("先后三次在南宁市兴宁区某工地盗窃电缆，共计盗得电缆价值人民币28,600元。", FENCE, (THEFT,))
    assert got.behaviour == "unusable"


# Round four (same day): a name and nothing more to a who-question; the place opening a company's name is
# no topic word; to a how-decided question only an order answers, and a verb naming a period orders
# nothing; another party's agent listed beside the agent asked; a first-instance title gives its parties
# their roles, so the plaintiff's figure is no answer for the defendant named.
COUNSEL = Passage(
    "cs/p3", "cs", "cs", "Re Golden Crest Engineering Limited",
    "Mr Peter Wong Ka-lok, instructed by Messrs Lui & Fong, appeared for the petitioner. Ms Lau Mei-ling, instructed "
    "by Messrs Chan, Tsui & Co, appeared for the company.",
)
INSTRUCTED = qa("c-instr", "Who instructed Ms Kwan Yee-mun?", "Messrs Kwan & Lo", COUNSEL)


def test_a_name_and_nothing_more_is_offered_for_a_who_question():
    got = label("Ms Lau Mei-ling.", INSTRUCTED, (COUNSEL,), lang="en")
    assert (got.behaviour, got.correctness) == ("attempted", "incorrect")
    # The name the question itself names offers no one.
    assert label("Ms Kwan Yee-mun.", INSTRUCTED, (COUNSEL,), lang="en").behaviour == "unusable"


HEADER = Passage(
    "hd/p1", "hd", "hd", "何x2、冯0与熊某、武汉某劳务有限公司、湖北某建设集团有限公司劳务合同纠纷一审民事判决书",
    "(2023)鄂0106民初8842号。原告:何x2,男,1968年3月15日出生。被告:熊某,男,1980年1月27日出生。被告:武汉某劳务有限公司,"
    "住所地武汉市江夏区。法定代表人:江x5,该公司经理。被告:湖北某建设集团有限公司,住所地武汉市武昌区。法定代表人:夏1,"
    "该公司董事长。",
)
REPRESENTATIVE = qa("c-rep", "被告武汉某劳务有限公司的法定代表人是谁?", "江x5", HEADER)


def test_the_place_of_a_companys_name_is_no_word_of_what_is_asked():
    assert "武汉" not in pt.topic_words(REPRESENTATIVE.question, "zh")
    assert "支付" in pt.topic_words("被告应支付给某公司多少货款?", "zh")
    got = label("被告:湖北某建设集团有限公司,住所地武汉市武昌区。", REPRESENTATIVE, (HEADER,))
    assert got.behaviour == "unusable"


APPEAL = Passage(
    "ap/p3", "ap", "ap", "(2021)苏01民终6732号 杨x8与南京某建设工程有限公司建设工程施工合同纠纷二审民事判决书",
    "本院认为:双方约定的质量保证金返还期限已于2021年10月25日届满。一审判决对此未予支持,但二审期间返还期限已经届满,"
    "本院对杨x8的上诉请求予以支持。判决如下:一、撤销南京市江宁区人民法院(2020)苏0115民初9315号民事判决。",
)
HANDLED = qa("c-handled", "在(2021)苏01民终6732号案中，二审法院如何处理一审判决?",
             "撤销南京市江宁区人民法院(2020)苏0115民初9315号民事判决", APPEAL)


def test_to_a_how_decided_question_a_ground_or_a_period_orders_nothing():
    got = label("一审判决对此未予支持,但二审期间返还期限已经届满。", HANDLED, (APPEAL,))
    assert got.behaviour == "unusable"
    got = label("判决如下:一、撤销南京市江宁区人民法院(2020)苏0115民初9315号民事判决。", HANDLED, (APPEAL,))
    assert (got.behaviour, got.correctness) == ("attempted", "correct")


AGENTS = Passage(
    "ag/p1", "ag", "ag", "宋x1与济南某二手车销售有限公司买卖合同纠纷一审民事判决书",
    "(2023)鲁0102民初7391号。原告:宋x1,男,1985年9月23日出生。委托诉讼代理人:田某,山东某律师事务所律师。"
    "被告:济南某二手车销售有限公司,住所地山东省济南市历下区。法定代表人:郭0,该公司总经理。委托诉讼代理人:董x6,该公司员工。",
)
PLAINTIFF_AGENT = qa("c-agent", "在(2023)鲁0102民初7391号案中，原告的委托诉讼代理人是谁?", "田某", AGENTS)


def test_another_partys_agent_beside_the_agent_asked_is_partly_supported():
    got = label("委托诉讼代理人:田某,山东某律师事务所律师。委托诉讼代理人:董x6,该公司员工。", PLAINTIFF_AGENT, (AGENTS,))
    assert (got.faithfulness, got.correctness) == ("partially_supported", "correct")
    got = label("委托诉讼代理人:田某,山东某律师事务所律师。", PLAINTIFF_AGENT, (AGENTS,))
    assert got.faithfulness == "fully_supported"


FLATS = Passage(
    "fl/p2", "fl", "fl", "卢x9与龚某财产损害赔偿纠纷一审民事判决书",
    "经审理查明:原告系1202室的所有权人,被告系其正上方1302室的所有权人。2022年6月18日,1302室卫生间的进水软管爆裂。",
)
OWNER = qa("c-owner", "龚某是哪一室的所有权人?", "1302室", FLATS)


def test_a_first_instance_title_gives_its_parties_their_roles():
    assert pt.zh_title_role([frozenset({"龚", "某"})], FLATS.heading) == "被告"
    assert pt.zh_title_role([frozenset({"卢", "x9"})], FLATS.heading) == "原告"
    assert pt.zh_title_role([frozenset({"卢", "x9"})], "卢x9与龚某财产损害赔偿纠纷二审民事判决书") is None
    got = label("原告系1202室的所有权人。", OWNER, (FLATS,))
    assert (got.faithfulness, got.correctness) == ("contradicted", "incorrect")
    got = label("被告系其正上方1302室的所有权人。", OWNER, (FLATS,))
    assert (got.faithfulness, got.correctness) == ("fully_supported", "correct")


# Round five (same day): a court named in a question is no party of its own, so the question is bound to
# its judgment; asked how many with no reference, sums offer no count; the "in" of "in person" says nothing
# alone; a cited case's holding offered to a yes/no question on the case asked supports nothing of it.
APPEAL_COURT = Passage(
    "ca/p4", "ca", "ca", "CACC 204/2024 HKSAR v Wong Siu-fung",
    "We consider that the proper starting point was 11 years, from which the one-third discount for the plea is to be "
    "taken.",
)
OTHER_SENTENCING = Passage(
    "os/p8", "os", "os", "Matters for determination",
    "Counsel addressed the court on the appropriate starting point and the discount for the plea.",
)
PROPER = qa("c-proper", "What starting point did the Court of Appeal consider proper?", "11 years", APPEAL_COURT)


def test_a_question_naming_only_a_court_is_bound_to_its_judgment():
    got = label("The proper starting point was 11 years. Counsel addressed the court on the appropriate starting point "
                "and the discount for the plea.", PROPER, (APPEAL_COURT, OTHER_SENTENCING), lang="en")
    assert (got.faithfulness, got.correctness) == ("partially_supported", "correct")


DEPOSITS = Passage(
    "dp/p6", "dp", "dp", "The Official Receiver v Ho Ka-lun and Lui Mei-kuen",
    "From July 2020, when the company's bank withdrew its trade facilities, the company went on taking deposits from "
    "retail customers. In the same months it paid $850,000 to Mr Ho himself as arrears of salary.",
)
CUSTOMERS = qa("c-cust", "In The Official Receiver v Ho Ka-lun and Lui Mei-kuen, how many retail customers paid deposits "
               "after the bank facilities were withdrawn?", "", DEPOSITS, facts=[])


def test_sums_offer_no_count_to_an_impossible_how_many_question():
    got = label("From July 2020 the company went on taking deposits from retail customers. In the same months it paid "
                "$850,000 to Mr Ho himself as arrears of salary.", CUSTOMERS, (DEPOSITS,), lang="en")
    assert got.behaviour == "unusable"
    got = label("The company took deposits from 37 retail customers.", CUSTOMERS, (DEPOSITS,), lang="en")
    assert got.behaviour == "attempted"


HEARING = Passage(
    "hr/p1", "hr", "hr", "The Official Receiver v Ho Ka-lun and Lui Mei-kuen",
    "The first respondent, Mr Ho Ka-lun, appeared in person. Ms Lui Mei-kuen was represented by Messrs Wong & Co.",
)
IN_PERSON = qa("c-person", "In The Official Receiver v Ho Ka-lun and Lui Mei-kuen, how was the first respondent "
               "represented?", "in person", HEARING)


def test_a_stopword_of_a_short_fact_states_nothing_of_it():
    got = label("This is the approach usually taken in law cases of this kind.", IN_PERSON, (HEARING,), lang="en")
    assert got.behaviour == "unusable"


QUASHED = Passage(
    "qs/p3", "qs", "qs", "HCAL 2045/2023 Tse Lai-ping and Ng Chun-hin v Director of Immigration",
    "In Shek Yuen-ting v Director of Immigration the court quashed a refusal made 2 months after the sponsor's death. "
    "The decision refusing the first applicant's extension is quashed and remitted to the Director.",
)
WAS_QUASHED = qa("c-quash", "In HCAL 2045/2023 Tse Lai-ping and Ng Chun-hin v Director of Immigration, was the refusal "
                 "concerning the first applicant quashed?", "Yes", QUASHED, kind="yesno", facts=["Yes"])


def test_a_cited_cases_holding_says_nothing_of_the_case_asked():
    got = label("In Shek Yuen-ting v Director of Immigration the court quashed a refusal made 2 months after the "
                "sponsor's death.", WAS_QUASHED, (QUASHED,), lang="en")
    assert (got.behaviour, got.faithfulness) == ("attempted", "unsupported")
    got = label("The decision refusing the first applicant's extension is quashed and remitted to the Director.",
                WAS_QUASHED, (QUASHED,), lang="en")
    assert got.faithfulness == "fully_supported"


# Round six (same day): 方 after a header's colon is a surname (法定代表人：方某), not "side"; another party's
# agent or representative beside the one asked counts for a question naming the party (祝某的诉讼代理人) or
# its company (原告公司的法定代表人) as for one naming its role.
OTHER_HEADER = Passage(
    "oh/p1", "oh", "oh", "深圳市某电子有限公司与段x7劳动争议二审民事判决书",
    "（2023）粤03民终4216号。上诉人（原审被告）：深圳市某电子有限公司，住所地广东省深圳市龙华区。法定代表人：方某，该公司董事长。",
)
POLICE_REP = qa("c-police", "在(2022)湘0111行初236号案中，被告的法定代表人是谁?", "汤0", OTHER_HEADER)


def test_fang_after_a_headers_colon_is_a_surname():
    assert pt.parties("法定代表人：方某，该公司董事长。", "zh") == [frozenset({"方", "某"})]
    assert pt.parties("被告方某", "zh") == []
    got = label("第[1]段写明：“法定代表人：方某，该公司董事长。”", POLICE_REP, (OTHER_HEADER,))
    assert (got.behaviour, got.correctness) == ("attempted", "incorrect")


GUARANTOR = Passage(
    "gu/p2", "gu", "gu", "金x8与钱x1、祝某民间借贷纠纷一审民事判决书",
    "原告:金x8,男,1980年出生。委托诉讼代理人:谭某,安徽某某律师事务所律师。被告:钱x1,男,1983年出生,缺席。被告:祝某,男,"
    "1979年出生。委托诉讼代理人:邹x6,男,1985年3月8日出生,系被告祝某的侄子。",
)
GUARANTOR_AGENT = qa("c-guar", "祝某的诉讼代理人是谁？", "邹x6", GUARANTOR)


def test_another_partys_agent_beside_a_named_partys_agent_is_partly_supported():
    got = label("委托诉讼代理人:邹x6,男,1985年3月8日出生,系被告祝某的侄子。委托诉讼代理人:谭某,安徽某某律师事务所律师。",
                GUARANTOR_AGENT, (GUARANTOR,))
    assert (got.faithfulness, got.correctness) == ("partially_supported", "correct")
    assert pt.asks_agent("原告公司的法定代表人是谁？") and pt.asks_agent(GUARANTOR_AGENT.question)


# The sixth Chinese and fifth English held-out batches' dev halves (same day): asked for a sum with no
# reference, only a sum offers one; "what price" and "what starting point" ask for figures; "what did the
# court hold on the submission" asks how the court met it; asked whether the court dismissed something, a
# sentence stating no response takes no position; a role before a bare name, or a firm's name, is still a
# bare name; a prayer's list item (二、判令……) is the party's request; and the court's ruling clause after a
# claim answers a yes/no on it.
PHOTOS = Passage(
    "ph/p1", "ph", "ph", "HCA 1563/2022 Lumiere Image Studio Limited v Brightway Home Furnishings Limited",
    "The photographs were taken in 2020 by Mr So Wing-chun, an employee of the plaintiff, for a hotel client, and the "
    "copyright in them belongs to the plaintiff.",
)
FEE = qa("c-fee", "In Lumiere Image Studio Limited v Brightway Home Furnishings Limited, what fee did the hotel client pay "
         "the plaintiff for the photographs?", "", PHOTOS, facts=[])


def test_a_year_offers_no_sum_to_an_impossible_fee_question():
    got = label("Passage [1] states: \"The photographs were taken in 2020 by Mr So Wing-chun, an employee of the plaintiff, "
                "for a hotel client.\"", FEE, (PHOTOS,), lang="en")
    assert got.behaviour == "unusable"


EFFECTIVE = Passage(
    "ef/p3", "ef", "ef", "DCCJ 4052/2023 Premier Keys Property Agency Limited v Yim Chi-shing",
    "The defendant submits that the plaintiff was not the effective cause of the sale. That submission is rejected: the "
    "agent introduced the buyers. The defendant's counterclaim is dismissed.",
)
HELD = qa("c-held", "In DCCJ 4052/2023 Premier Keys Property Agency Limited v Yim Chi-shing, what did the court hold on "
          "the defendant's submission that the plaintiff was not the effective cause of the sale?",
          "That submission is rejected", EFFECTIVE)
COUNTERCLAIM = qa("c-cc", "In DCCJ 4052/2023 Premier Keys Property Agency Limited v Yim Chi-shing, was the defendant's "
                  "counterclaim dismissed?", "Yes", EFFECTIVE, kind="yesno", facts=["Yes"])


def test_a_submission_restated_holds_nothing_on_it():
    got = label("Passage [1] states: \"The defendant submits that the plaintiff was not the effective cause of the sale.\"",
                HELD, (EFFECTIVE,), lang="en")
    assert got.behaviour == "unusable"


def test_a_counterclaim_brought_says_nothing_of_whether_it_was_dismissed():
    got = label("The defendant counterclaims damages for breach of the agent's duties.", COUNTERCLAIM, (EFFECTIVE,),
                lang="en")
    assert got.behaviour == "unusable"
    got = label("The defendant's counterclaim is dismissed.", COUNTERCLAIM, (EFFECTIVE,), lang="en")
    assert got.behaviour == "attempted"


LOGGING = Passage(
    "lg/p1", "lg", "lg", "（2022）赣0781刑初217号 樊某、柏x4滥伐林木罪一审刑事判决书",
    "被告人樊某，男，1975年出生。辩护人龙x6，江西某律师事务所律师。被告人柏x4，男，1980年出生。",
)
COUNSEL_ZH = qa("c-cn", "在（2022）赣0781刑初217号案中，第一被告人的辩护人是谁？", "龙x6", LOGGING)


def test_a_role_before_a_bare_name_or_a_firm_is_still_a_name_offered():
    got = label("被告人樊某。", COUNSEL_ZH, (LOGGING,))
    assert (got.behaviour, got.correctness) == ("attempted", "incorrect")
    investor = qa("c-inv", "在(2023)浙02知民初318号案中，被告一的投资人是谁?", "樊x1", LOGGING)
    assert label("慈溪市某某五金厂。", investor, (LOGGING,)).behaviour == "attempted"


TOUR = Passage(
    "tr/p3", "tr", "tr", "康某与天津某某国际旅行社有限公司旅游合同纠纷一审民事判决书",
    "原告向本院提出诉讼请求：一、判令被告退还旅游费用25,800元。二、判令被告赔偿精神损害抚慰金2,200元。"
    "本院认为：原告主张的精神损害抚慰金缺乏法律依据，本院依法予以驳回。",
)
SOLATIUM = qa("c-sol", f"在《{TOUR.heading}》中，法院是否支持原告的精神损害抚慰金请求？", "否", TOUR, kind="yesno", facts=["No"])


def test_the_courts_ruling_not_the_prayer_answers_whether_a_claim_was_upheld():
    got = label("否。", SOLATIUM, (TOUR,))
    assert (got.faithfulness, got.correctness) == ("fully_supported", "correct")
    got = label("是。", SOLATIUM, (TOUR,))
    assert got.faithfulness == "contradicted"
