"""Rules the dev halves of the fifth Chinese and fourth English held-out batches showed missing (6 December;
docs/method.md §4): a sentence ruling 不予采信 on a defence is the court's finding; 千分之五 is a rate and
1.3倍 a multiple, so a reply offering neither to "几倍" takes no position; a case title gives its parties
their ordinal roles ("HKSAR v Cheung Wing-yin and Lau Chun-pong": the second defendant is someone else),
and so does a sentence naming the party right after its role; a bare number the reference is ("19" to how
old) puts the sentence holding it on the item; "Mr Ho" is Ho Ka-lun in a passage naming him; "That
submission is rejected" is the court's answer to the submission before it; to how the court met a
submission, the submission restated takes no position; a Yes/No's added figure is checked only where it is on
the item of the reference's figure (a suspension "for 18 months", not the 9 months on remand); asked for a
time, a sum offers none; asked under which provision, a reply citing none names none; a date to the month
is no figure; the sentence holding the reference's words whole is on the item; a claim on the other
respondent of the case asked rests on its passage. Hand-built records, hand-checked labels (none of them is
a validation item)."""

from __future__ import annotations

from judge_cases import label, qa

from pipeline.matching import parties as pt
from pipeline.matching import values
from pipeline.records import Passage

TILES = Passage(
    "ti/p4", "ti", "ti", "石家庄某某建材有限公司与石家庄某某装饰工程有限公司买卖合同纠纷一审民事判决书",
    "本院认为：原告已依约交付货物，被告一应支付欠款386,500元。被告一辩称部分瓷砖存在色差，但其收货时未提出异议，"
    "亦未提交证据，本院不予采信。被告一主张约定的违约金过高，请求调整，本院认为每日千分之五的标准明显高于原告的实际损失，"
    "对该主张予以支持，调整为以欠款为基数，按一年期贷款市场报价利率的1.3倍计算。",
)
LOAN = Passage(
    "lo/p2", "lo", "lo", "金x8与钱x1民间借贷纠纷一审民事判决书",
    "经审理查明：2022年3月1日，被告钱x1向原告金x8借款200,000元，借条约定月利率2%。",
)
SENTENCES = Passage(
    "se/p7", "se", "se", "HKSAR v Cheung Wing-yin and Lau Chun-pong",
    "The first defendant is sentenced to 24 months' imprisonment on charge 1 and 20 months' imprisonment on charge 2, "
    "making 30 months' imprisonment in all. The second defendant is sentenced to 12 months' imprisonment on charge 3.",
)
APPLICANTS = Passage(
    "ap/p1", "ap", "ap", "Judicial review",
    "The first applicant is Ms Tse Lai-ping; the second applicant is her son, Mr Ng Chun-hin, now aged 19. "
    "Ms Olivia Chan Pui-san appeared for both applicants.",
)
PAYMENTS = Passage(
    "pa/p2", "pa", "pa", "The Official Receiver v Ho Ka-lun and Lui Mei-kuen",
    "In the same months the company paid $3,200,000 to Kaiwing Holdings Limited, a company owned by Mr Ho, and "
    "$850,000 to Mr Ho himself as arrears of salary, a total of $4,050,000.",
)
DUTY = Passage(
    "du/p3", "du", "du", "The Official Receiver v Ho Ka-lun and Lui Mei-kuen",
    "Ms Lui Mei-kuen submitted that, as a director without executive authority, she owed no duty to question "
    "payments approved by the managing director. That submission is rejected: she held the finance portfolio and "
    "signed the cheques.",
)




DEFENCE = qa("t-defence", f"在《{TILES.heading}》中，被告一以瓷砖有色差为由抗辩，法院如何对待？", "不予采信", TILES)


def test_a_defence_ruled_not_credited_is_the_court_s_finding():
    quoted = label("被告一辩称部分瓷砖存在色差，但其收货时未提出异议，亦未提交证据，本院不予采信。", DEFENCE, (TILES,), "zh")
    assert (quoted.behaviour, quoted.faithfulness, quoted.correctness) == ("attempted", "fully_supported", "correct")


def test_per_mille_rates_are_shares_and_multiples_are_their_own_kind():
    assert values.kinds("每日千分之五", "zh") == {"share"}
    assert values.kinds("日万分之五", "zh") == {"share"}
    assert values.kinds("1.3倍", "zh") == {"multiple"}
    assert values.values("按LPR的四倍计算", {"multiple"}, "zh") == {"4"}
    # The double wage a claim is named after is no multiple offered.
    assert values.kinds("二倍工资差额66,000元", "zh") == {"money"}


MULTIPLE = qa("t-multiple", f"在《{TILES.heading}》中，法院把违约金调整为LPR的几倍？", "1.3倍", TILES)
RATE = qa("t-rate", f"在《{LOAN.heading}》中，借条上约定的利息标准是多少？", "月利率2%", LOAN)


def test_a_claim_restated_offers_no_multiple_and_another_case_s_rate_is_an_attempt():
    restated = label("被告一主张约定的违约金过高，请求调整。", MULTIPLE, (TILES,), "zh")
    assert restated.behaviour == "unusable"
    given = label("调整为以欠款为基数，按一年期贷款市场报价利率的1.3倍计算。", MULTIPLE, (TILES,), "zh")
    assert (given.behaviour, given.faithfulness, given.correctness) == ("attempted", "fully_supported", "correct")
    # Another judgment's rate offered for the loan's: a position of the kind asked, resting on nothing of it,
    # and contradicted where the loan's own passage gives its rate.
    alone = label("本院认为每日千分之五的标准明显高于原告的实际损失。", RATE, (TILES,), "zh")
    assert (alone.behaviour, alone.faithfulness, alone.correctness) == ("attempted", "unsupported", "incorrect")
    beside = label("本院认为每日千分之五的标准明显高于原告的实际损失。", RATE, (TILES, LOAN), "zh")
    assert (beside.behaviour, beside.faithfulness, beside.correctness) == ("attempted", "contradicted", "incorrect")


def test_a_title_and_a_role_followed_by_its_name_give_the_party_s_role():
    cheung = pt.parties("Cheung Wing-yin", "en")
    assert pt.roles_in_title(cheung, "HKSAR v Cheung Wing-yin and Lau Chun-pong") == {"1D", "1R", "1A"}
    assert pt.roles_in_title(pt.parties("Lau Chun-pong", "en"), "HKSAR v Cheung Wing-yin and Lau Chun-pong") == {
        "2D", "2R", "2A"}
    assert pt.roles_in_title(pt.parties("Ng Chun-hin", "en"), "Tse Lai-ping and Ng Chun-hin v Director") == {"2P", "2A"}
    assert pt.roles_in_title(cheung, "Conclusion") == frozenset()
    assert pt.roles_given(pt.parties("Ng Chun-hin", "en"), APPLICANTS.text) == {"2A"}
    assert pt.roles_given(pt.parties("Tse Lai-ping", "en"), APPLICANTS.text) == {"1A"}


TERM = qa("t-term", "What overall term was Cheung Wing-yin sentenced to?", "30 months' imprisonment", SENTENCES)


def test_the_other_defendant_s_term_is_contradicted_for_the_one_named_in_the_title():
    other = label("The second defendant is sentenced to 12 months' imprisonment on charge 3.", TERM, (SENTENCES,), "en")
    assert (other.faithfulness, other.correctness) == ("contradicted", "incorrect")
    own = label("The first defendant is sentenced to 24 months' imprisonment on charge 1 and 20 months' imprisonment "
                "on charge 2, making 30 months' imprisonment in all.", TERM, (SENTENCES,), "en")
    assert (own.faithfulness, own.correctness) == ("fully_supported", "correct")


AGE = qa("t-age", "How old is Ng Chun-hin?", "19", APPLICANTS)


def test_the_sentence_holding_a_bare_number_reference_is_on_the_item():
    quoted = label("The first applicant is Ms Tse Lai-ping; the second applicant is her son, Mr Ng Chun-hin, now aged 19.",
                   AGE, (APPLICANTS,), "en")
    assert (quoted.faithfulness, quoted.correctness) == ("fully_supported", "correct")
    wrong = label("Mr Ng Chun-hin is now aged 21.", AGE, (APPLICANTS,), "en")
    assert wrong.faithfulness != "fully_supported" and wrong.correctness == "incorrect"


TOTAL = qa("t-total", "How much in all was paid out to Ho Ka-lun and his own company?", "$4,050,000", PAYMENTS)


def test_a_party_called_by_title_and_surname_is_the_party_named_in_full():
    assert pt.called_by_surname("paid $850,000 to Mr Ho himself", pt.parties("Ho Ka-lun", "en")[0],
                                pt.parties("Ho Ka-lun and Lui Mei-kuen", "en"))
    # Two parties sharing the word: "Mr Ho" could be either.
    assert not pt.called_by_surname("paid $850,000 to Mr Ho himself", pt.parties("Ho Ka-lun", "en")[0],
                                    pt.parties("Ho Ka-lun and Ho Wing-kit", "en"))
    quoted = label("In the same months the company paid $3,200,000 to Kaiwing Holdings Limited, a company owned by Mr "
                   "Ho, and $850,000 to Mr Ho himself as arrears of salary, a total of $4,050,000.", TOTAL, (PAYMENTS,), "en")
    assert (quoted.faithfulness, quoted.correctness) == ("fully_supported", "correct")


ACCEPTED = qa("t-accepted", "Did the court accept Lui Mei-kuen's argument that she had no duty to question the "
              "managing director's payments?", "No", DUTY, kind="yesno", facts=["No"])


def test_a_ruling_pointing_back_at_a_submission_answers_it():
    yes = label("Yes.", ACCEPTED, (DUTY,), "en")
    assert (yes.faithfulness, yes.correctness) == ("contradicted", "incorrect")
    no = label("No.", ACCEPTED, (DUTY,), "en")
    assert (no.faithfulness, no.correctness) == ("fully_supported", "correct")


WAGES = Passage(
    "wa/p9", "wa", "wa", "胡x7与杭州某某科技有限公司劳动争议一审民事判决书",
    "本院认为：被告另主张二倍工资差额应以固定工资计算、不含绩效奖金，本院予以采纳，差额为66,000元。",
)
ATTITUDE = qa("t-attitude", f"在《{WAGES.heading}》中，被告主张二倍工资不应把绩效奖金算进去，法院对此持何态度？", "予以采纳", WAGES)


def test_the_submission_restated_says_nothing_of_the_court_s_answer():
    premise = label("被告另主张二倍工资差额应以固定工资计算、不含绩效奖金。", ATTITUDE, (WAGES,), "zh")
    assert premise.behaviour == "unusable"
    answered = label("被告另主张二倍工资差额应以固定工资计算、不含绩效奖金，本院予以采纳。", ATTITUDE, (WAGES,), "zh")
    assert (answered.behaviour, answered.correctness) == ("attempted", "correct")


REMAND = Passage(
    "re/p4", "re", "re", "HKSAR v Poon Hon-hung",
    "The court sentences Poon Hon-hung to 11 months imprisonment, with credit for the 9 months already spent in "
    "custody on remand. The sentence is suspended for 2 years, on condition that the defendant is of good behaviour.",
)
SUSPENDED = qa("t-suspended", "Was the custodial term given to Poon Hon-hung suspended?",
               "Yes. The sentence of 11 months was suspended for 2 years, on condition that the defendant is of good "
               "behaviour throughout that period.", REMAND, kind="yesno", facts=["Yes", "2 years"])


def test_a_yes_no_s_figure_on_another_item_of_the_sentence_is_no_wrong_suspension():
    remand = label("Yes. The court sentences Poon Hon-hung to 11 months imprisonment, with credit for the 9 months "
                   "already spent in custody on remand.", SUSPENDED, (REMAND,), "en")
    assert remand.correctness == "correct"
    wrong = label("Yes. The sentence is suspended for 18 months.", SUSPENDED, (REMAND,), "en")
    assert wrong.correctness == "incorrect"


ORDERS = Passage(
    "or/p8", "or", "or", "HKSAR v Cheung Wing-yin and Lau Chun-pong",
    "The first defendant is also ordered to pay to the Government $120,000, the value of the advantages she "
    "received, within 6 months, in default 4 months' imprisonment.",
)
WITHIN = qa("t-within", "In HKSAR v Cheung Wing-yin and Lau Chun-pong, within what time must the first defendant pay the "
            "Government?", "within 6 months", ORDERS)


def test_asked_for_a_time_a_sum_offers_none():
    assert label("The first defendant is also ordered to pay to the Government $120,000.", WITHIN, (ORDERS,),
                 "en").behaviour == "unusable"
    assert label("Within 6 months.", WITHIN, (ORDERS,), "en").behaviour == "attempted"


APPEAL = Passage(
    "am/p1", "am", "am", "HCMA 412/2024 HKSAR v Cheung Wing-yan",
    "This is an appeal against sentence by Mr Cheung Wing-yan, who was convicted after trial on 3 June 2024. The "
    "appellant was convicted under section 39A(1) of the Road Traffic Ordinance, Cap 374.",
)
PROVISION = qa("t-provision", "Under which provision was Cheung Wing-yan convicted?",
               "section 39A(1) of the Road Traffic Ordinance, Cap 374", APPEAL)
COMPANY = Passage(
    "cm/p2", "cm", "cm", "The Official Receiver v Ho Ka-lun and Lui Mei-kuen",
    "From July 2020, when the company's bank withdrew its trade facilities, the company went on taking deposits "
    "from retail customers for goods it could not pay for.",
)
CUSTOMERS = qa("t-customers", "In The Official Receiver v Ho Ka-lun and Lui Mei-kuen, how many retail customers paid "
               "deposits after the bank facilities were withdrawn?", "", COMPANY, facts=[])


def test_no_provision_cited_names_no_provision_and_a_month_s_year_is_no_count():
    dated = label("This is an appeal against sentence by Mr Cheung Wing-yan, who was convicted after trial on 3 June "
                  "2024.", PROVISION, (APPEAL,), "en")
    assert dated.behaviour == "unusable"
    cited = label("Under section 39A(1) of the Road Traffic Ordinance, Cap 374.", PROVISION, (APPEAL,), "en")
    assert (cited.behaviour, cited.correctness) == ("attempted", "correct")
    restated = label(COMPANY.text, CUSTOMERS, (COMPANY,), "en")
    assert restated.behaviour == "unusable"


HEARING = Passage(
    "he/p1", "he", "he", "The Official Receiver v Ho Ka-lun and Lui Mei-kuen",
    "The first respondent, Mr Ho Ka-lun, the company's managing director and majority shareholder, appeared in "
    "person. The second respondent, Ms Lui Mei-kuen, was represented by Ms Doris Kam Wing-sze, instructed by "
    "Messrs Hui & Chow.",
)
IN_PERSON = qa("t-person", "In The Official Receiver v Ho Ka-lun and Lui Mei-kuen, how was the first respondent "
               "represented at the hearing?", "in person", HEARING)
SOLICITORS = qa("t-solicitors", "In The Official Receiver v Ho Ka-lun and Lui Mei-kuen, which solicitors instructed "
                "counsel for the second respondent?", "Messrs Hui & Chow", HEARING)


def test_the_reference_s_words_whole_and_the_other_respondent_of_the_case():
    quoted = label("The first respondent, Mr Ho Ka-lun, the company's managing director and majority shareholder, "
                   "appeared in person.", IN_PERSON, (HEARING,), "en")
    assert (quoted.faithfulness, quoted.correctness) == ("fully_supported", "correct")
    both = label("The second respondent, Ms Lui Mei-kuen, was represented by Ms Doris Kam Wing-sze, instructed by "
                 "Messrs Hui & Chow. The first respondent, Mr Ho Ka-lun, the company's managing director and majority "
                 "shareholder, appeared in person.", SOLICITORS, (HEARING,), "en")
    assert (both.faithfulness, both.correctness) == ("fully_supported", "correct")
