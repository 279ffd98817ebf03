"""Whether a question names a party, a case or a document of its own, or only points back into the one
judgment it was written on (本案, 原告, "the tenant"): docs/method.md §1, "Standalone questions". The import
makes such questions standalone (pipeline/importers/standalone.py); the rule judge reads one that is still
bound against the judgment of its gold passage (pipeline/judges/rule.py).

Names are those of published sets: anonymised (曹x0, 朱0, 黄1, 李某, 张某某), companies with a legal form
(某物业服务有限公司), case numbers and titles in 《》; in English a capitalised word that is not a role (the
Tribunal, the Applicant), an office, a law, a date or Hong Kong, or the first word.
"""

from __future__ import annotations

import re

from pipeline.matching.cues_zh import SURNAMES

# Anonymised names (曹x0, 朱0, 李某) over the shared surnames, less the characters that as often open a word
# of a passage's first lines (关 of 关于, 单 of 单位, 查 of 查明, 全 of 全部, 时 of 时间).
_SURNAMES = "".join(sorted(set(SURNAMES) - set("万全兰关农单古司吉和安师应成文时明景查简芦解路车连阳项麦")))
_ZH_NAME = re.compile(
    rf"[{_SURNAMES}](?:[xX×]\d+|\d{{1,2}}(?![\d.,%年月日号元次天个人万亿岁级]))"
    rf"|[{_SURNAMES}]某+"
)
# A company or body named with its legal form ("某物业服务有限公司", "某银行股份有限公司滁州分行").
_ZH_ORG = re.compile(r"[\u4e00-\u9fff]{2,}(?:有限责任公司|股份有限公司|有限公司|分公司|分行|支行|集团|合作社)")
# A case number: (2015)定民一初字第01234号, （2016）皖1125刑初219号.
CASE_NUMBER = re.compile(r"[（(]\d{4}[）)][^\s（()）,，。;；:：、]{2,24}?号")


def opening_case_number(text: str) -> str | None:
    """The case number a judgment's paragraph opens with ("(2018)浙0782民初5617号。经审理查明……"): its own;
    one further in is often another court's, cited."""
    found = CASE_NUMBER.match(text.lstrip())
    return found.group(0) if found else None
_ZH_TITLE = re.compile(r"《[^》]+》")
# Words that point back into the document: counted as the reason a question is bound (not needed for it).
_ZH_DEICTIC = re.compile(
    r"本案|该案|此案|本院|本判决|原审|一审|二审|原告|被告|上诉人|申请人|第三人|被害人|公诉机关|当事人|双方"
    r"|(?<![应活])该(?=[\u4e00-\u9fff])|此(?=[\u4e00-\u9fff])"
)
_EN_ROLES = frozenset(
    """applicant applicants respondent respondents plaintiff plaintiffs defendant defendants appellant
    appellants claimant claimants court tribunal judge magistrate commission board landlord tenant tenants
    accused prosecution crown government secretary director company panel chairman member court's
    tribunal's applicant's respondent's plaintiff's defendant's appellant's landlord's tenant's""".split()
)
# Capitalised words that name no party or case of the question's own: offices and courts any judgment has
# (the Bailiff, the High Court), the law it applies (Order 44A of the Rules of the High Court, the Theft
# Ordinance, Cap 210), dates and the place every one of them sits in.
_EN_NOT_NAMES = frozenset(
    """bailiff registrar master registry high district magistrates magistracy first instance appeal final
    order orders rule rules ordinance ordinances cap section sections schedule regulation regulations part
    article articles convention law laws code hong kong kowloon mainland china special administrative region
    january february march april may june july august september october november december monday tuesday
    wednesday thursday friday saturday sunday""".split()
)
# A law named by its title ("the Theft Ordinance", "the Rules of the High Court", "the Carriage by Air
# Ordinance"): the words of the title are the law's, not a party's.
_EN_LAW = re.compile(
    r"(?:\b[A-Z][\w'’-]*\s+(?:(?:of|by|and|for|the)\s+)*){0,6}"
    r"(?:Ordinance|Rules|Act|Regulations?|Convention|Code)\b(?:\s+of\s+the(?:\s+[A-Z][\w'’-]*){1,4})?"
)
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'’.-]*")
_EN_DEICTIC = re.compile(
    r"\b(?:this|that|the present|the instant)\s+(?:case|matter|decision|judgment|appeal|application|claim|"
    r"proceedings?)\b|\bthe\s+(?:" + "|".join(sorted(w for w in _EN_ROLES if "'" not in w)) + r")\b",
    re.I,
)
def has_anchor(question: str, language: str) -> bool:
    """Whether the question names a party, a case or a document of its own."""
    if language == "zh":
        return any(p.search(question) for p in (_ZH_NAME, _ZH_ORG, CASE_NUMBER, _ZH_TITLE))
    words = _EN_WORD.findall(_EN_LAW.sub(" law ", question))
    return any(
        w[0].isupper() and w.lower() not in _EN_ROLES and w.lower() not in _EN_NOT_NAMES and w != "I" for w in words[1:]
    )


def is_deictic(question: str, language: str) -> bool:
    """Whether the question points back into its document by role or demonstrative (本案, the tenant)."""
    return bool((_ZH_DEICTIC if language == "zh" else _EN_DEICTIC).search(question))
