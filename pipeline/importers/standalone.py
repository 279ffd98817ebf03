"""Questions bound to their document, made standalone at import (docs/method.md §1, "Standalone questions").

A published QA set writes each question on one judgment: "被告向原告借了多少钱?", "How much did the tenant
have to pay?". Shown ten passages of ten judgments, a reader cannot tell which 被告 is meant, and an
answer quoting another case's defendant is faithful and wrong. A question is bound to its document when
it names no party, case or document of its own (a role, 本案/this case, a demonstrative or nothing at all
points back to the judgment it was written on). `corpus.qa_import.standalone` then:

- prefix: the question is prefixed with its judgment's identifier as the reader sees it beside the gold
  passage: a case number in the title or opening the paragraph ("在（2015）定民一初字第01234号案中，…"),
  else the title ("在《曹x0与朱0民间借贷纠纷一审民事判决书》中，…", "In Chan v Wong, how much …"); with
  neither, the question is left out (reason `bound_no_identifier`);
- skip: it is left out (reason `document_bound`);
- keep: it stays as written (counted as kept bound).

Names are those of published sets: anonymised (曹x0, 朱0, 黄1, 李某, 张某某), companies with a legal form
(某物业服务有限公司), case numbers and titles in 《》; in English a capitalised word that is not a role (the
Tribunal, the Applicant) or the first word. A real full name the rule cannot see ("张三") counts as none:
prefixing such a question is harmless, skipping it loses it, so prefix is the default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Common surnames: an anonymised name is one of them plus x/X and digits, digits, or 某 (曹x0, 朱0, 李某).
_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢"
    "姜崔钟谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵钱严覃武戴莫孔汤常温康施"
    "牛樊葛邢齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕季裴霍涂苗谷盛曲翁冉"
    "骆蓝游辛靳管柴蒙鲍华喻祁蒲房滕屈饶牟艾尤穆卓缪褚娄窦戚岑党宫费卜冷晏席卫米柏宗瞿桂佟臧闵苟邬边卞姬仇"
    "栾隋刁沙荣巫寇桑郎甄丛仲虞敖巩佘池麻苑迟邝"
)
_ZH_NAME = re.compile(
    rf"[{_SURNAMES}](?:[xX×]\d+|\d{{1,2}}(?![\d.,%年月日号元次天个人万亿岁级]))"
    rf"|[{_SURNAMES}]某+"
)
# A company or body named with its legal form ("某物业服务有限公司", "某银行股份有限公司滁州分行").
_ZH_ORG = re.compile(r"[\u4e00-\u9fff]{2,}(?:有限责任公司|股份有限公司|有限公司|分公司|分行|支行|集团|合作社)")
# A case number: (2015)定民一初字第01234号, （2016）皖1125刑初219号.
CASE_NUMBER = re.compile(r"[（(]\d{4}[）)][^\s（()）,，。;；:：、]{2,24}?号")
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
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'’.-]*")
_EN_DEICTIC = re.compile(
    r"\b(?:this|that|the present|the instant)\s+(?:case|matter|decision|judgment|appeal|application|claim|"
    r"proceedings?)\b|\bthe\s+(?:" + "|".join(sorted(w for w in _EN_ROLES if "'" not in w)) + r")\b",
    re.I,
)
# First words an English question may start with that lose their capital after "In <title>, ".
_EN_LOWER_FIRST = frozenset(
    "what who whom whose when where which why how did does do is was were are has have had can could should "
    "would will must may might to in on for under after before the a an by at according".split()
)
# Reasons a bound question is left out.
SKIPPED = "document_bound"
NO_IDENTIFIER = "bound_no_identifier"
EXAMPLES = 5


def has_anchor(question: str, language: str) -> bool:
    """Whether the question names a party, a case or a document of its own."""
    if language == "zh":
        return any(p.search(question) for p in (_ZH_NAME, _ZH_ORG, CASE_NUMBER, _ZH_TITLE))
    words = _EN_WORD.findall(question)
    return any(w[0].isupper() and w.lower() not in _EN_ROLES and w != "I" for w in words[1:])


def is_deictic(question: str, language: str) -> bool:
    """Whether the question points back into its document by role or demonstrative (本案, the tenant)."""
    return bool((_ZH_DEICTIC if language == "zh" else _EN_DEICTIC).search(question))


def identifier(title: str, paragraph: str, language: str) -> str | None:
    """How the reader beside the gold passage can tell its judgment: a case number in the title or
    opening the paragraph (a number further in is often another court's, cited), else the title."""
    title = title.strip()
    if language == "zh":
        found = CASE_NUMBER.search(title) or CASE_NUMBER.match(paragraph.lstrip())
        if found:
            return f"{found.group(0)}案"
        return f"《{title.strip('《》')}》" if title else None
    return title or None


def prefixed(question: str, ident: str, language: str) -> str:
    """The question prefixed with its judgment's identifier (the rule of docs/method.md §1)."""
    question = question.strip()
    if language == "zh":
        return f"在{ident}中，{question}"
    first, _, rest = question.partition(" ")
    if first.lower().rstrip(",") in _EN_LOWER_FIRST:
        question = first[:1].lower() + first[1:] + (f" {rest}" if rest else "")
    return f"In {ident}, {question}"


@dataclass
class StandaloneCounts:
    """What the standalone rule did to one import: written with the import's skipped records."""

    policy: str
    questions: int = 0
    bound: int = 0
    deictic: int = 0  # bound questions with a role or demonstrative (the rest name nothing at all)
    prefixed: int = 0
    kept_bound: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    examples: list[dict] = field(default_factory=list)

    def summary(self) -> dict:
        return {"policy": self.policy, "questions": self.questions, "bound": self.bound,
                "deictic": self.deictic, "prefixed": self.prefixed, "kept_bound": self.kept_bound,
                "skipped": dict(sorted(self.skipped.items())), "examples": self.examples}


def make_standalone(
    question: str, title: str, paragraph: str, language: str, policy: str, counts: StandaloneCounts, qid: str
) -> tuple[str | None, str | None]:
    """(the question as imported under `policy`, None) or (None, the reason it is left out); `counts`
    records which."""
    counts.questions += 1
    if has_anchor(question, language):
        return question, None
    counts.bound += 1
    counts.deictic += is_deictic(question, language)
    if policy == "keep":
        counts.kept_bound += 1
        return question, None
    ident = identifier(title, paragraph, language) if policy == "prefix" else None
    made, reason = None, None
    if ident is None:
        reason = SKIPPED if policy == "skip" else NO_IDENTIFIER
        counts.skipped[reason] = counts.skipped.get(reason, 0) + 1
    else:
        counts.prefixed += 1
        made = prefixed(question, ident, language)
    if len(counts.examples) < EXAMPLES:
        counts.examples.append({"id": qid, "question": question, "made": made})
    return made, reason
