"""Whether a reply takes a position on the question (docs/method.md §4), and which of its sentences gives
its answer.

A reply takes a position when it states a Yes/No, or a value of a kind the reference's facts are (an
amount, a duration, a case, a clause; pipeline/matching/values.py), the name a fact names, or most of the
words of a fact that is words only. A pasted passage about another matter states none; of a reply cut off
at max_new_tokens, only a clause that speaks of what was asked counts.
"""

from __future__ import annotations

import re

from pipeline import matching as m
from pipeline.judges import evidence as ev
from pipeline.judges.base import JudgeItem, cut_off
from pipeline.matching import counsel, rulings, statements, values
from pipeline.matching.parties import (
    ZH_LEADING_ROLE,
    asks_agent,
    cases,
    cited_cases,
    en_roles_of,
    names_any,
    only_attendance,
    parties,
    role_words,
    topic_words,
    without_cases,
    without_parties,
    without_titled_roles,
    zh_roles,
)
from pipeline.matching.parties import on_topic as speaks_of
from pipeline.records import QA

# A polarity fact ("Yes"/"No", "是"/"否") as the yes/no bottom line it requires.
POLARITY_FACTS = {"yes": "yes", "no": "no", "是": "yes", "是的": "yes", "否": "no", "不是": "no"}


def polarity_fact(fact: str) -> str | None:
    return POLARITY_FACTS.get(fact.strip().lower().rstrip(".。"))


def is_yesno(qa: QA) -> bool:
    return qa.kind == "yesno" or any(polarity_fact(f) for f in qa.facts)


# The clauses a position is looked for in: a value and what it is the value of are stated together.
# (A comma between digits is a thousands separator, not a clause end.)
_CLAUSES = {
    "en": re.compile(r"(?<=[.!?;])\s+|\n"),
    "zh": re.compile(r"[，；;。！？!?：:\n]|(?<![0-9]),|,(?![0-9])"),
}


def clauses(text: str, lang: str) -> list[str]:
    return _CLAUSES["zh" if lang == "zh" else "en"].split(text)


# A question asking how the case was decided (its disposition) and a clause making an order: any order
# stated as the outcome is a position on it, right or wrong ("2.本案诉讼费用由被告负担" for "本案是如何判决的").
# A bare announcement ("判决如下", "The court ordered as follows") makes none.
_ASKS_DISPOSITION = {
    "zh": re.compile(r"(?:如何|怎样|怎么)(?:判决|裁判|裁定|处理)|判决(?:结果|如何|内容)|裁判结果"),
    "en": re.compile(
        r"\bhow\s+(?:did|was|were)\b.{0,40}\b(?:decide|decided|rule|ruled|dispose|disposed|determine|determined)\b"
        r"|\bwhat\s+(?:orders?|was\s+the\s+(?:outcome|result|disposition))\b"
        r"|\bwhat\s+did\s+the\s+(?:court|tribunal|judge|magistrate)\s+do\s+(?:with|about)\b",
        re.I,
    ),
}
_MAKES_ORDER = {
    "zh": re.compile(
        # A verb naming a period ("返还期限已经届满": the time for returning it has run) orders nothing.
        r"由[^，,。；;]{1,16}(?:负担|承担)|(?:(?:支付|偿还|赔偿|返还|退还)(?!期限|期间|时间|日期)"
        r"|没收|罚款|罚金|判处|驳回|撤销|准予|维持原判|不予支持|予以支持)"
    ),
    "en": re.compile(
        r"\b(?:ordered\s+(?:to|that)|shall\s+(?:pay|bear|be)|is\s+to\s+(?:pay|bear)|to\s+bear\s+the\s+costs|dismissed|allowed"
        r"|sentenced|granted|refused|set\s+aside|quashed|fined|disqualified|prohibited)\b",
        re.I,
    ),
}


# A finding that a party did or paid something is no order: paid on a date ("被告仅于2015年7月2日偿还利息"),
# already or done ("已支付", "退赔了"), or spent on the suit ("原告为本案诉讼支付律师费8,000元"); nor is the
# ground a court gave ("一审法院以质量保证金返还期限未届满为由").
_DONE_ZH = re.compile(
    r"于\d{4}年|已经?(?:支付|偿还|赔偿|返还|退还|退赔|缴纳)|(?:支付|偿还|赔偿|返还|退还|退赔|缴纳)了"
    r"|为[^，,。；;]{0,6}(?:本案|诉讼)[^，,。；;]{0,4}(?:支付|花费|花去)|以[^，,。；;]{2,40}为由"
)


# A question asking how the court met what a party put forward ("被告主张……，法院对此持何态度", "法院如何对待",
# "How did the court treat the submission that ...").
_ASKS_RESPONSE = {
    "zh": re.compile(r"(?:主张|抗辩|辩称|请求|诉称)[^？?]*(?:持何态度|什么态度|如何对待|怎样对待|如何认定|如何处理|是否(?:支持|采纳|采信|认可))"),
    "en": re.compile(
        r"\b(?:how|what)\b[^?]*\b(?:treat|deal\s+with|meet|handle|respond\s+to|make\s+of|hold\s+on|decide\s+on|rule\s+on"
        r"|conclude\s+on|say\s+(?:of|about))\b[^?]*\b(?:submission|argument|contention|claim|defence|case\s+that)\b",
        re.I,
    ),
}


def _only_submissions(answer: str, question: str, lang: str) -> bool:
    """Whether, to a question asking how the court met a party's submission, every claim of the reply is a
    submission or an issue statement: the premise restated ("被告另主张二倍工资差额应以固定工资计算") says
    nothing of the court's answer to it."""
    if not _ASKS_RESPONSE["zh" if lang == "zh" else "en"].search(question):
        return False
    body, _ = statements.split_filler(answer, lang)
    claims = [c for c in ev.sentences(body, lang) if not m.is_framing(c, lang)]
    # A claim naming the submission with no ruling on it ("其关于亏损全部属于正常投资风险……的抗辩。") restates it too.
    return bool(claims) and all(
        statements.is_issue_or_submission(c, lang)
        or (statements.reports_submission(c, lang) and rulings.ruling(c, lang) is None)
        for c in claims
    )


def _asks_disposition(question: str, lang: str) -> bool:
    return bool(_ASKS_DISPOSITION["zh" if lang == "zh" else "en"].search(question))


def _reports_done(clause: str, lang: str) -> bool:
    return lang == "zh" and bool(_DONE_ZH.search(clause))


def _makes_order(clause: str, question: str, lang: str) -> bool:
    key = "zh" if lang == "zh" else "en"
    return _asks_disposition(question, lang) and bool(_MAKES_ORDER[key].search(clause)) and not _reports_done(clause, lang)


# A question asking which court or company ("本案一审由哪个法院审理") is answered by one named by its place or
# its name ("安徽省定远县人民法院", "某商贸有限公司"), not by its role in the case ("一审法院", "原审法院").
_ASKS_WHICH_ZH = re.compile(r"哪(?:个|家|所|一个?|一家)?(法院|公司|银行|医院|机关|单位|机构)")


def _names_which(answer: str, question: str, lang: str) -> bool | None:
    """None when the question asks no which-institution; else whether the answer names one."""
    asked = _ASKS_WHICH_ZH.search(question) if lang == "zh" else None
    if not asked:
        return None
    noun = re.escape(asked.group(1))
    return bool(re.search(rf"(?:[\u4e00-\u9fff]{{1,8}}(?:省|市|县|区|州|镇)|某)[\u4e00-\u9fff]{{0,12}}{noun}", answer))


# A question asking who (the lawyer, the judge, who bears the fee): a clause on its topic naming a party
# the question does not name answers it, right or wrong, whatever the reference says (an impossible
# question has none): "被告某保险公司的委托诉讼代理人王某" to "被告的代理律师是谁".
_ASKS_WHO = {
    "zh": re.compile(r"谁|哪位|何人|哪一方|哪家"),
    # "What was the name of the shift supervisor who ...", "... of X's new managing director" asks who as "who" does.
    "en": re.compile(r"\bwho(?:m|se)?\b|\bwhich\s+(?:party|person|company|firm|solicitor|counsel|lawyer|judge)\b"
                     r"|^\s*(?:In\s[^,]*,\s*)?what\s+(?:was|is)\s+the\s+name\s+of\b", re.I),
}


def asks_who(question: str, lang: str) -> bool:
    return bool(_ASKS_WHO["zh" if lang == "zh" else "en"].search(question))


# A Chinese question asking what someone is to a party or in a company (潘某是被告的什么人员, 姚2在被告一担任什么
# 职务, 丁某是什么身份), and one asking a name (负责人叫什么, 两名教师分别叫什么名字).
_ZH_ASKS_ROLE = re.compile(r"什么(?:人员|人(?!民)|职务|职位|身份)|何种(?:职务|身份)|担任何")
_ZH_ASKS_NAME = re.compile(r"叫什么|姓名")
# The nouns a Chinese judgment states a standing or a relation by (该公司员工, 法律工作者, 副局长, 系被告之子).
_ZH_ROLE_NOUN = re.compile(
    r"工作人员|人员|员工|职工|律师|法律工作者|董事长?|监事|经理|主管|负责人|经营者|股东|会计|出纳|司机|店长|厂长|局长|主任"
    r"|教师|老师|医生|护士|之[子女妻夫父母弟兄姐妹]|[父母]亲|丈夫|妻子|儿子|女儿|弟弟|哥哥|姐姐|妹妹|亲属|朋友|同事"
)


def _zh_offers_role(answer: str, question: str) -> bool:
    """Whether a Chinese reply states someone's standing, other than one the question names: in a clause
    naming a party ("委托诉讼代理人：苗x9，四川某某律师事务所律师"), after 系/是/为/担任 ("系某某鞋店经营者"), or as
    a bare phrase ("该公司员工。"). "未安排人员每日巡查" names no one's standing."""
    asked = set(_ZH_ROLE_NOUN.findall(_ZH_ASKS_ROLE.sub(" ", question)))
    # Framing is read too: a bare standing ("该公司员工。") reads as framing, and framing names no standing.
    claimed = [m.strip_citations(s) for s in ev.sentences(answer, "zh")]
    names_someone = bool(parties(" ".join(claimed), "zh"))
    for clause in (c for s in claimed for c in clauses(s, "zh")):
        nouns = [n for n in _ZH_ROLE_NOUN.finditer(clause) if n.group(0) not in asked]
        if not nouns:
            continue
        bare = len(clause.strip(" 。.，,；;")) <= 14 and clause.strip(" 。.，,；;").endswith(nouns[-1].group(0))
        stated = any(re.search(r"(?:系|是|为|担任)[^，,。；;]{0,12}$", clause[: n.start()]) for n in nouns)
        if bare or stated or names_someone:
            return True
    return False


# What an English question asks a sum of money by ("what fee", "what price").
_EN_MONEY_NOUNS = r"price|fee|rent|commission|deposit|salary|wages?|revenue|turnover|profit|income"


# A question asking for a figure: how much, how many, how long, when. Its answer is a figure; a reply that
# offers none restates what the question presupposes ("证监会决定没收张某违法所得" to "没收了多少违法所得").
_ASKS_FIGURE = {
    "zh": re.compile(r"多少|几(?!乎)|多长|多久|多大|何时|什么时[候间]|哪一?(?:天|日|年|月)"),
    "en": re.compile(
        r"\bhow\s+(?:much|many|long|old)\b|\bat\s+what\s+age\b|^\s*(?:In\s[^,]*,\s*)?when\b|\bon\s+what\s+date\b"
        r"|\bwhat\s+(?:amount|sum|date|percentage)\b|\bwhat\s+(?:was|is|were)\s+the\s+(?:value|amount|sum|total)\b"
        r"|\bwithin\s+what\s+(?:time|period)\b|\bby\s+what\s+date\b|\bat\s+what\s+rate\b"
        rf"|\bwhat\s+(?:{_EN_MONEY_NOUNS}|starting\s+point)s?\b",
        re.I
    ),
}


# A question asking how many (people, times, items) in its words.
_ASKS_COUNT = {
    "zh": re.compile(r"(?:多少|几)(?:人|名|次|个|位|户|件|套|张|辆|项|起|笔)"),
    "en": re.compile(r"\bhow\s+many\b", re.I),
}


def _counts(number: re.Match[str], text: str, question: str) -> bool:
    """Whether a number in `text` counts what an English how-many question counts: a word of the three
    after "how many" among the three after the number."""
    asked = re.search(r"\bhow\s+many\s+((?:\w+\s*){1,3})", question, re.I)
    if asked is None or number.group(0) in question:
        return False
    wanted = m.content_words(asked.group(1), "en")
    after = m.content_words(" ".join(text[number.end():].split()[:3]), "en")
    return bool(wanted & after)


# A question asking for a sum of money in its words (when no reference says which kind of figure it wants).
_ASKS_AMOUNT = {
    "zh": re.compile(r"多少钱|多少元|(?:金额|数额)[^，。？?]{0,3}多少|多少[^，。？?\d]{0,5}(?:费|款|金|资|赔偿)"
                     r"|(?:费|款|金|资|赔偿)[^，。？?]{0,8}多少"),
    "en": re.compile(
        rf"\bhow\s+much\b|\bwhat\s+(?:amount|sum|{_EN_MONEY_NOUNS})s?\b"
        rf"|\bwhat\s+(?:was|is|were)\s+the\s+(?:\w+\s+)?(?:amount|sum|{_EN_MONEY_NOUNS})s?\b",
        re.I,
    ),
}


# A question asking for a rate or a share in its words (when no reference says which kind of figure it wants).
_ASKS_RATE = {
    "zh": re.compile(r"(?:利率|比例|费率)[^，。？?]{0,6}(?:多少|几|为何|是什么)|百分之几|按(?:多少|何种|什么)(?:比例|利率)"),
    "en": re.compile(r"\bat\s+what\s+rate\b|\bwhat\s+(?:rate|percentage|proportion)\b", re.I),
}
# A time limit ("30日内", "within 14 days"): when a sum is due, no sum.
_DEADLINE = {True: re.compile(r"[0-9一二三四五六七八九十]+(?:日|天|个月|月|年)(?:之)?内"),
             False: re.compile(r"\bwithin\s+\d+\s+(?:days?|weeks?|months?|years?)\b", re.I)}
# A question asking a weight or an area in its words, and the units that give one.
_ASKS_MEASURE = {
    "zh": [(re.compile(r"重量|多重"), re.compile(r"\d\s*(?:吨|公斤|千克|克|斤)|[一二三四五六七八九十百千]+(?:吨|公斤|千克|斤)")),
           (re.compile(r"面积"), re.compile(r"\d\s*(?:平方米|平方|亩|公顷|㎡)|[一二三四五六七八九十百千]+(?:亩|平方米)"))],
    "en": [(re.compile(r"\bwhat\s+weight\b|\bhow\s+heavy\b|\bweigh\b", re.I),
            re.compile(r"\d\s*(?:kg|kilogram|kilo|tonne|ton|gram|gramme|g\b|lb|pound)", re.I)),
           (re.compile(r"\bwhat\s+(?:was\s+the\s+)?area\b|\bhow\s+large\b", re.I),
            re.compile(r"\d\s*(?:square\s+(?:metres|meters|feet)|sq\.?\s*(?:m|ft)|hectares?|acres?)", re.I))],
}
# A rate given without a figure ("at the judgment rate", "2% above prime" has its figure).
_NAMED_RATE = re.compile(r"\bjudgment\s+rate\b|\bprime\s+rate\b|贷款市场报价利率|同期.{0,6}利率")


# The sums a question names by what they are for ("月工资是多少", "what fee"): a sentence stating a sum for
# something else (竞业限制经济补偿3,000元) gives another item.
_MONEY_NOUNS = {
    "zh": re.compile(r"工资|薪酬|薪金|租金|补偿|赔偿|违约金|利息|价款|货款|房款|借款|押金|定金|保证金|罚金|罚款|佣金|报酬"
                     r"|抚养费|医疗费|律师费|鉴定费|受理费|服务费|培训费|装修费|维修费"),
    "en": re.compile(rf"\b(?:{_EN_MONEY_NOUNS}|fine|compensation|damages|costs|loan|premium|penalty|interest)s?\b", re.I),
}


def sum_of_another_item(question: str, sentence: str, lang: str) -> bool:
    """Whether a sentence states sums for none of the things the question asks a sum of (it names one)."""
    pattern = _MONEY_NOUNS["zh" if lang == "zh" else "en"]
    asked = {n.lower().rstrip("s") for n in pattern.findall(question)}
    if not asked or "money" not in values.kinds(sentence, lang):
        return False
    return not asked & {n.lower().rstrip("s") for n in pattern.findall(sentence)}


def asks_figure(question: str, lang: str) -> bool:
    return bool(_ASKS_FIGURE["zh" if lang == "zh" else "en"].search(question))


# The kind of figure a question asks for when no reference says it (a question the set marks impossible):
# a date to "when", "on what date", 哪一天.
_ASKS_DATE = {
    "zh": re.compile(r"何时|什么时[候间]|哪一?(?:天|日)|几月几日"),
    "en": re.compile(r"^\s*(?:In\s[^,]*,\s*)?when\b|\bon\s+what\s+(?:date|day)\b|\bwhat\s+date\b"
                     r"|\bwhat\s+(?:was|is)\s+the\s+(?:[a-z-]+\s+)?date\b", re.I),
}


# A question asking until when (到什么时候为止, 至何时, until when) and what names an end point.
_ASKS_END = {
    "zh": re.compile(r"(?:到|至)(?:什么时[候间]|何时)|什么时[候间](?:为)?止|截止到?何时"),
    "en": re.compile(r"\buntil\s+when\b|\bup\s+to\s+when\b|\buntil\s+what\s+(?:date|age|time)\b", re.I),
}
_ENDS = {
    "zh": re.compile(r"止|为止|届满|至\S|截至|截止|到期"),
    "en": re.compile(r"\buntil\b|\bup\s+to\b|\bending\b|\bexpir|\bterminat|\bceases?\b|\bby\s+\d", re.I),
}


# A question asking for a period (期间是什么, "for what period"): only two dates joined as a span or a length of
# time name one; a single date (the day the advert came down) is another item's.
_ASKS_PERIOD = {
    "zh": re.compile(r"期间(?:是|为)?(?:什么|多久|多长)|(?:什么|哪个|哪段|多长)期间|期限(?:是|为)(?:什么|多久|多长)"),
    "en": re.compile(r"\b(?:for|over|during)\s+what\s+period\b|\bwhat\s+(?:was|is)\s+the\s+period\b"
                     r"|\bbetween\s+what\s+dates\b", re.I),
}
_SPAN = {
    "zh": re.compile(r"日\s*(?:至|到|—|-|～|~)\s*(?:[0-9０-９〇零一二三四五六七八九十]+年)?[0-9０-９〇零一二三四五六七八九十]+月"
                     r"|月\s*(?:至|到)\s*(?:[0-9０-９〇零一二三四五六七八九十]+年)?[0-9０-９〇零一二三四五六七八九十]+月"),
    "en": re.compile(r"\bfrom\b[^.;]{0,40}\b(?:to|until|till)\b|\bbetween\b[^.;]{0,40}\band\b", re.I),
}


def _offers_period(answer: str, lang: str) -> bool:
    return bool(_SPAN[lang].search(answer)) or bool(values.kinds(answer, lang) & values.DURATIONS)


# A place to "where" (何处, 在哪里) when no reference says it: a reply naming none takes no position ("遗嘱正文
# ……系萧x0本人书写" says who wrote a will, not where).
_ASKS_PLACE = {
    "zh": re.compile(r"何处|何地|哪里|哪儿|什么地方|在哪"),
    "en": re.compile(r"^\s*(?:In\s[^,]*,\s*)?where\b|\bat\s+what\s+(?:place|address)\b", re.I),
}
_PLACE = {
    "zh": re.compile(r"[省市县区镇乡村路街巷楼室]|家中|住所|住处|寓所|医院|宾馆|酒店|办公|公证处|事务所|现场|门口|仓库|店"),
    "en": re.compile(
        r"\b(?:at|in|on)\s+(?:the\s+)?(?:[A-Z][\w'-]*|home|office|premises|flat|shop|hospital|court|street|road)\b"
        r"|\b(?:Road|Street|Flat|Floor|Building|Centre|Court|Mansion|Estate)\b"
    ),
}


_ASKS_FIRM = re.compile(r"\bwhich\s+(?:firm|company)\b", re.I)
_FIRM = re.compile(r"\bMessrs\b|&\s*Co\b|\b(?:Limited|Ltd|Company|LLP|Solicitors)\b")


def _names_another(answer: str, question: str, passages: list[str] | None = None, headings: list[str] | None = None) -> bool:
    """Whether an English reply names a party, or a role, that the question does not name (a role the
    passages or the case title give a party it names is that party: "The appellant" for Ms Tsui Wing-kwan);
    to a question asking which firm or company, whether it names a firm or a company."""
    if _ASKS_FIRM.search(question):
        return bool(_FIRM.search(answer.replace(question, " ")))
    asked = parties(question, "en")
    answer = without_titled_roles(answer, asked, headings or [])
    if any(not names_any([p], asked) for p in parties(answer, "en")):
        return True
    return bool(role_words(answer) - role_words(question) - en_roles_of(asked, passages or []))


def _offers_place(answer: str, question: str, lang: str) -> bool | None:
    """Whether a reply to a question asking where, with no reference, names a place; None for any other
    question."""
    key = "zh" if lang == "zh" else "en"
    if not _ASKS_PLACE[key].search(question):
        return None
    return bool(_PLACE[key].search(without_parties(answer, lang)))


# Kinds of value that cite a source rather than state a figure.
_CITED = frozenset({"section", "clause", "case"})
_ASKS_PROVISION = {
    "zh": re.compile(r"(?:依据|根据|依照|适用|按照)(?:的是)?(?:哪|什么|何)(?:一)?(?:条|项|款|法律|规定)"),
    "en": re.compile(r"\b(?:which|what)\s+(?:provision|section|statutory\s+provision|rule|regulation|article)\b", re.I),
}


# An English question asking a rate per unit of time ("at what daily rate"): only a figure per that unit
# answers it ("$1,200 a day"; a rate per Special Drawing Right or a lump sum does not). (A monthly rent is
# often given as the sum alone.)
_EN_ASKS_PER = re.compile(r"\b(daily|weekly|monthly|annual|yearly)\s+(?:rate|hire\s+rate|charge)s?\b", re.I)
_EN_UNIT = {"daily": "day", "weekly": "week", "monthly": "month", "annual": "year|annum", "yearly": "year|annum"}


def _per_unit_missing(answer: str, question: str, lang: str) -> bool:
    """Whether an English question asks a figure per unit of time and the reply names none per that unit."""
    asked = _EN_ASKS_PER.search(question) if lang != "zh" else None
    if not asked:
        return False
    adjective = asked.group(1).lower()
    unit = _EN_UNIT[adjective]
    return not re.search(rf"\b(?:a|an|per|each|every)\s+(?:{unit})\b|\b{adjective}\b|\bp\.?a\.?\b", answer, re.I)


def _offers_figure(answer: str, facts: list[str], lang: str, question: str = "") -> bool:
    """Whether a reply offers a figure as an answer: a value of a kind the facts are, of any kind but those
    that only situate (a date in "被告自2018年3月起未再支付租金" answers no "how much"), or a bare number ("a
    sum of 160,000"; not a citation's [9], a case number, a date or the index of an anonymised name). With
    no facts, or a date for its fact, a question asking when wants a date: an amount, a period or a rate
    offers none ("年利率109.5%" to from when a penalty runs)."""
    offered = values.kinds(answer, lang)
    asked = set().union(*(values.kinds(f, lang) for f in facts)) if facts else set()
    if _ASKS_AGE["zh" if lang == "zh" else "en"].search(question):
        # Asked how old, only an age offers one: a length of time or a sum does not ("14 months had passed").
        return values.states_age(answer, lang)
    if (not facts or asked == {"date"}) and _ASKS_DATE["zh" if lang == "zh" else "en"].search(question):
        return "date" in offered
    if not facts and _ASKS_AMOUNT["zh" if lang == "zh" else "en"].search(question):
        # Asked for a sum with no reference: only a sum offers one (a year the photographs were taken offers no
        # fee); a whole amount or nothing paid is one too.
        return "money" in offered or values.whole_amount(answer, lang) or values.nothing_paid(answer, lang)
    measure = next((unit for asks, unit in _ASKS_MEASURE["zh" if lang == "zh" else "en"] if asks.search(question)), None)
    if not facts and measure is not None:
        # Asked a weight or an area with no reference: only a figure in its units offers one (460箱 of beef is
        # no weight).
        return bool(measure.search(answer))
    if not facts and _ASKS_RATE["zh" if lang == "zh" else "en"].search(question):
        # Asked at what rate, with no reference: only a rate or a share offers one (a sum and a date "with
        # interest" offer no rate).
        return "share" in offered or bool(_NAMED_RATE.search(answer))
    if not facts and _ASKS_COUNT["zh" if lang == "zh" else "en"].search(question):
        # Asked how many, with no reference: a count, or a number that is no value of another kind (sums
        # and a month offer no number of customers).
        if lang == "zh":
            return "count" in offered
        # In English, a number of the thing counted: "37 retail customers" to how many retail customers, not
        # "9 of the 1,200 undivided shares" to how many owners voted.
        counted = values.without_values(values.without_dates(m.strip_citations(without_parties(answer, lang)), lang), lang)
        return any(_counts(found, counted, question) for found in re.finditer(r"\b\d[\d,]*\b", counted))
    # A duration in any unit offers the length asked ("within 14 days" to within what time, asked in months);
    # an age ("19 years old") is no length.
    lengths = values.kinds(values.without_ages(answer), lang) & values.DURATIONS
    if offered & asked or asked and asked <= values.DURATIONS and lengths:
        return True
    bare = values.without_dates(m.strip_citations(without_parties(answer, lang)), lang)
    if lang != "zh":
        bare = values.EN_CASE_NUMBER.sub(" ", bare)
    if asked and not asked & _CITED:
        # A section, a clause or a case cited is no amount, duration or rate ("contrary to section 37(1)"
        # to how long a ban was); another figure is another item's (a prison term for a fine).
        offered -= _CITED
        bare = values.without_values(bare, lang)
        # Asked for a time, a figure of another kind offers none (a sum of money to within what time it must
        # be paid); a prison term offered for a fine is still a penalty offered (another item's).
        if asked <= values.DURATIONS and offered - values.SITUATING:
            return False
        # So does a figure of another kind asked for a rate or a share (a sum of damages to at what rate
        # interest runs).
        if asked <= {"share"} and offered - values.SITUATING:
            return False
        # Asked for a sum, a count offers none ("共412台出售给他人" to 得款多少).
        if asked <= {"money"} and offered - values.SITUATING == {"count"}:
            return False
        # Asked for a sum, a time limit for paying it offers none ("上述款项在交房后30日内支付", "within 14 days").
        deadline = _DEADLINE[lang == "zh"]
        if asked <= {"money"} and deadline.search(answer):
            rest = deadline.sub(" ", bare)
            if not values.kinds(deadline.sub(" ", answer), lang) - values.SITUATING and not re.search(r"\d", rest):
                return False
    # A number the question itself names ("the part of Lot 1103") is no figure offered.
    return bool(offered - values.SITUATING) or bool(set(re.findall(r"\d+", bare)) - set(re.findall(r"\d+", question)))


_ASKS_AGE = {"zh": re.compile(r"多大年纪|多少岁|几岁|年龄(?:是|为)?多少"),
             "en": re.compile(r"\bhow\s+old\b|\bat\s+what\s+age\b|\bwhat\s+(?:was|is)\s+\S+\s+age\b", re.I)}
_BARE_COUNT = re.compile(r"^\s*[0-9][0-9,]*\s*$")


def _figure_only(fact: str, lang: str) -> bool:
    """A fact that is a figure and nothing more ("$16,500", "3,000元"; not "15% of the rent")."""
    return bool(values.kinds(fact, lang) - values.SITUATING) and not m.fact_words(values.without_values(fact, lang), lang)


_TITLE_WORDS = frozenset("mr mrs ms miss mdm madam dr".split())


# A Chinese firm named for what it is (慈溪市某某五金厂): a party, though no 公司.
_ZH_FIRM = re.compile(r"^[\u4e00-\u9fff]{2,20}(?:厂|店|经营部|合作社|事务所|中心|公司)[。.]?$")


def _only_a_name(clause: str, lang: str) -> bool:
    """Whether a clause is one party's name and nothing more, its role or title aside ("Ms Lau Mei-ling.",
    "江x5。", "被告人樊某。", "慈溪市某某五金厂。")."""
    if lang == "zh":
        bare = ZH_LEADING_ROLE.sub("", clause).strip()
        if _ZH_FIRM.match(bare):
            return True
        named = parties(bare, lang)
        return len(named) == 1 and not m.content_words(bare, lang) - named[0]
    named = parties(clause, lang)
    if len(named) != 1:
        return False
    return not m.content_words(clause, lang) - named[0] - _TITLE_WORDS


def _names_who(clause: str, question: str, lang: str) -> bool:
    if not asks_who(question, lang):
        return False
    asked = parties(question, lang)

    if lang != "zh" and _ASKS_FIRM.search(question):
        # Which firm: a firm named ("Messrs Chow & Partners"), not people (the clerks of "the solicitors
        # who prepared it").
        if not _FIRM.search(clause):
            return False
    elif not any(not names_any([p], asked) for p in parties(clause, lang)):
        return False
    # On the topic: a word of what is asked (代理 of 代理律师 in 委托诉讼代理人), names and roles aside; a
    # single character says too little.
    topic = {w for w in topic_words(question, lang) if len(w) > 1}
    return bool(topic & m.haystack(clause, lang))


def _states(fact: str, clause: str, on_topic: bool, lang: str, question: str = "") -> bool:
    """Whether a clause states something of the fact's kind: a value of its kind on the question's
    topic (a rate for the period asked), the party it names, a number for a number, or most of its
    words."""
    kinds = values.kinds(fact, lang)
    if kinds:
        # A long fact (the orders of a judgment) says itself what it is about.
        about = on_topic or len(m.fact_words(fact, lang) & m.haystack(clause, lang)) >= 2
        shared = kinds & values.kinds(clause, lang)
        if not shared and kinds <= values.DURATIONS and asks_figure(question, lang):
            # Asked how long, a length in another unit is a length ("within 14 days" to within what time,
            # asked in months); a rule's period ("21 days in arrears") is not any term ("for two years").
            shared = values.kinds(values.without_ages(clause), lang) & values.DURATIONS
        if shared == {"date"} and question:
            # A date asked is not offered by one opening another item's period (违约金 "自2020年1月1日起"
            # to the day the decedent died).
            shared = kinds & values.kinds(values.without_period_starts(clause, question, lang), lang)
        none = values.nothing_paid(clause, lang) or values.nothing_awarded(clause, lang)
        if "money" in kinds and (values.whole_amount(clause, lang) or none and speaks_of(clause, question, lang)):
            shared.add("money")
        asked_periods = values.rate_periods(question, lang)
        if shared == {"share"} and asked_periods:
            # A rate for another period, or a rise of a rate, is not the rate asked.
            stated = values.rate_periods(clause, lang)
            other_period = bool(stated) and stated.isdisjoint(asked_periods)
            if other_period or not values.rates(clause, lang):
                return False
        return about and bool(shared)
    named = parties(fact, lang)
    if named:
        return names_any(parties(clause, lang), named)
    if m.numbers(fact, lang):
        # A number for a number, not a value of a known kind: a sum of money names no class of goods
        # ("256,300元" to "第几类商品").
        return on_topic and bool(m.numbers(values.without_values(clause, lang), lang))
    words = m.fact_words(fact, lang)
    if lang == "zh":
        # A single character (the 工 of 钢筋工) is in many words (工作): only whole words say it.
        words = {w for w in words if len(w) > 1} or words
    said = m.answer_words(clause, lang)
    # A short fact's stopwords say nothing alone: the "in" of "in person" is in every sentence.
    if lang != "zh" and not (words & said) - m.STOPWORDS:
        return False
    return ev.share(words, said) >= 0.5


# A question asking for a total (共计多少) or for a party's share (分得, 应负担多少) and what a sentence must say
# to give that total or share rather than another item's figure: a component (医疗费23,460元 of the 物质损失
# 共计38,000元), or the whole of which a share is asked (名下银行存款240,000元 to 原告分得多少; 亏损150,000元 to
# 应分担的亏损).
_SCOPES_ZH = (
    (re.compile(r"共计|合计|总计|总额|总共|一共"), re.compile(r"共计|合计|总计|总额|总共|一共|共|计|总")),
    (re.compile(r"分得|应得|分配"), re.compile(r"分得|应得|分配|份额|归")),
    (re.compile(r"分担|负担|承担"), re.compile(r"分担|负担|承担|份额")),
)


def within_scope(sentence: str, qa: QA, lang: str) -> bool:
    """Whether a sentence of a pasted passage cut off speaks of the item asked at its scope (docs/method.md
    §4: a paste states only a clause on what was asked). To a Chinese question asking for a total, a
    sentence stating one; to one asking for a share, a sentence on who bears or takes what. To an English
    question naming its case and asking for no authority, not a sentence citing another case ("As stated
    in HKSAR v Tang Ka-chun, the guideline starting points ... for 10 to 50 grammes" gives no quantity found
    in the case asked)."""
    if lang != "zh":
        asked = cases(qa.question)
        cited = cited_cases(sentence)
        wants_case = qa.kind == "rule" or any("case" in values.kinds(f, lang) for f in qa.facts)
        return not asked or wants_case or not cited or bool(cited & asked)
    return all(not asks.search(qa.question) or says.search(sentence) for asks, says in _SCOPES_ZH)


def pasted(answer: str, item: JudgeItem, lang: str) -> bool:
    """Whether a reply cut off at max_new_tokens reads as a pasted passage: more than one sentence that
    claims something (filler and framing aside), or one that runs on past the cut in a passage's own words
    (its end and the unfinished tail are one passage's text). One finished sentence cut in what follows it
    ("吴某尚欠货款63,500元。这类案件在…") offers that sentence as its answer, as a finished reply does."""
    body, _ = statements.split_filler(answer, lang)
    if sum(1 for s in ev.sentences(body, lang) if not m.is_framing(s, lang)) > 1:
        return True
    run = (answer[-6:] + item.tail).strip()
    # The verbose panel strings sentences from several places: a tail that is one passage's own words (not
    # a formula such as 判决如下 that many judgments hold) runs on in that passage, whatever came before it.
    tail = item.tail.strip()
    holding = sum(tail in p.text for p in item.passages) if len(tail) >= 4 else 0
    if not tail:
        # Cut right after a sentence's end: a paste only where a passage's own sentence ends there (a reply
        # closing "……精神损害抚慰金10,000元。" where the passage runs on "，扣除……" closed a sentence of its own).
        closed = answer.rstrip().rstrip("”\"」』'’")
        end = closed[-12:]
        # The passage the sentence was taken from is the one holding its opening words.
        last = ev.sentences(closed, lang)[-1] if ev.sentences(closed, lang) else closed
        opening = last.lstrip("第[]0123456789段写明：:“\"「 ")[:10]
        sources = [p.text for p in item.passages if opening and opening in p.text] or [p.text for p in item.passages]
        return not end or any(end in text for text in sources)
    return holding == 1 or any(run in p.text for p in item.passages)


def states_value(answer: str, item: JudgeItem, lang: str) -> bool:
    """Whether a reply (what is left of it beside a refusal) gives a Yes/No, or a clause stating a value of
    a kind the reference's facts are, the name a fact names, or an order to a how-decided question:
    "63,500元。" beside "提供的段落没有足够的信息……" still answers how much (docs/method.md §4). Words of
    the question alone ("the passages discuss the arrears") are no value."""
    if m.lead_polarity(answer, lang):
        return True
    facts = [f for f in answer_facts(item.qa) if values.kinds(f, lang)]
    return any(_clause_answers(c, item.qa, facts, True, lang) for c in clauses(answer, lang))


def answer_facts(qa: QA) -> list[str]:
    """The reference's facts an answer can state (a Yes/No fact is read by its polarity instead)."""
    return [f for f in qa.facts if f.strip() and not polarity_fact(f)]


def _clause_answers(clause: str, qa: QA, facts: list[str], on_topic: bool, lang: str) -> bool:
    """Whether one clause gives an answer: an order to a how-decided question (`on_topic`: where it must
    speak of what was asked), the name a who-question asks for, or one of `facts` stated."""
    if on_topic and _makes_order(clause, qa.question, lang):
        return True
    # To a how-decided question a finding of what a party did or paid (its amount too) is no order.
    if _asks_disposition(qa.question, lang) and _reports_done(clause, lang):
        return False
    if _names_who(clause, qa.question, lang):
        return True
    return any(_states(fact, clause, on_topic, lang, qa.question) for fact in facts)


def _figure_on_item(answer: str, question: str, lang: str) -> bool:
    """Whether a clause of the reply offers a sum on what the question asks (the fee of who bears it; not the
    count of the works of whose employee took them)."""
    return any("money" in values.kinds(c, lang) and speaks_of(c, question, lang) for c in clauses(answer, lang))


def takes_position(answer: str, item: JudgeItem, lang: str) -> bool:
    """Whether a reply states anything of what was asked (docs/method.md §4): a Yes/No, or for a
    yes/no question a statement on its topic; otherwise a clause stating a value of a kind the
    reference's facts are (an amount, a duration, a case, a clause; in a cut-off reply, on the
    question's topic), the name a fact names, most of the words of a fact that is words only, or most
    of what the question asks about (names and roles aside). A pasted passage about another matter,
    or a cut-off reply that stops before the answer, states none of these."""
    qa = item.qa
    if m.lead_polarity(answer, lang):
        return True
    if _only_submissions(answer, qa.question, lang):
        return False
    if is_yesno(qa):
        # A statement on the question's topic that is not an issue statement or a submission; the topic is
        # what is asked whether, not whom it is asked of (a test of knowledge "the defendant himself knew"
        # says nothing of whether the second defendant had previous convictions).
        topic = _whether_topic(qa.question, lang)
        # Asked whether the court responded one way (dismissed, granted, quashed), a sentence stating no
        # response ("the defendant counterclaims damages" to whether the counterclaim was dismissed) takes none.
        response = lang != "zh" and bool(_EN_RESPONSE.search(qa.question))
        return any(
            _on_whether(topic, qa.question, ev.sentence(s, lang), lang) and not statements.is_issue_or_submission(s, lang)
            and (not response or bool(_EN_RESPONSE.search(s)))
            for s in ev.sentences(answer, lang)
        )
    if _per_unit_missing(answer, qa.question, lang):
        return False
    if lang == "zh" and _ZH_ASKS_ROLE.search(qa.question):
        # Asked what someone is, a reply takes a position by stating someone's standing (another person's
        # offered for the one asked included); a pasted sentence stating none offers nothing.
        return _zh_offers_role(answer, qa.question)
    if lang == "zh" and _ZH_ASKS_NAME.search(qa.question) and not parties(answer, lang):
        # Asked a name, a reply naming no one ("该分公司总经理。", "两名教师在场") gives none.
        return False
    # Nor does one whose names stand only in attendance sentences naming no agent ("原告屠某及其委托诉讼代理人、被告
    # 翁x1的委托诉讼代理人到庭参加诉讼" to who 翁x1's agent is): they name the parties whose agents came.
    if lang == "zh" and asks_agent(qa.question) and asks_who(qa.question, lang) and only_attendance(answer):
        return False
    topic = topic_words(qa.question, lang)
    facts = answer_facts(qa)
    # A finished reply offering a value of the kind asked gives it as the answer; of a pasted passage cut
    # off, only a clause on what was asked does.
    cut_short = cut_off(item)
    cut = cut_short and pasted(answer, item, lang)
    key = "zh" if lang == "zh" else "en"
    # Asked for a period, only a clause naming one answers (see _offers_period).
    period = bool(_ASKS_PERIOD[key].search(qa.question))
    # The figure a question names ("what starting point did 96.5 grammes carry") picks, in a paste cut off,
    # the clause on what it asks: the guideline bands before it are another item.
    named_figures = m.numbers(without_cases(qa.question), lang) if cut else set()
    for sentence in ev.sentences(answer, lang) if cut else [answer]:
        scoped = not cut or within_scope(sentence, qa, lang)
        parts = clauses(sentence, lang)
        first = next((k for k, c in enumerate(parts) if named_figures & m.numbers(c, lang)), 0)
        for clause in parts[first:]:
            if period and not _offers_period(clause, key):
                continue
            # A clause cut before the verb the scope is read by ("……借款本金人民币叁拾贰万元整(320,000元)及利" to
            # 对多少借款本金承担) is on the item still where it states the reference's own value whole.
            in_scope = scoped or any(values.kinds(f, lang) and _gives_figures(f, clause, lang) for f in facts)
            if _clause_answers(clause, qa, facts, not cut or in_scope and speaks_of(clause, qa.question, lang), lang):
                return True
    # Asked who a party's agent is, a reply naming no one names no agent: "二原告共同委托诉讼代理人" names the
    # principals.
    if lang == "zh" and asks_agent(qa.question) and not parties(answer, lang):
        return False
    # A reply that is a name and nothing more offers that name for what was asked ("Ms Lau Mei-ling." to who
    # instructed counsel).
    if asks_who(qa.question, lang) and not cut_short:
        claimed = " ".join(m.strip_citations(s) for s in ev.sentences(answer, lang) if not m.is_framing(s, lang))
        if _only_a_name(claimed.strip(), lang) and not names_any(parties(claimed, lang), parties(qa.question, lang)):
            return True
    # Asked who represented a party, a finished reply saying someone appeared in person says nobody did: a
    # position, whoever it is about ("The second defendant, Ms Pong Ka-yue, appeared in person.").
    if lang != "zh" and not cut_short and counsel.asks_representation(qa.question) and counsel.appeared_in_person(answer):
        return True
    # A Chinese sentence names its subject once and chains what the subject did in the clauses after it
    # ("被告人邱0、韦x5共谋后，先后三次……盗窃电缆"): to a who-question, a finished one naming a party the
    # question does not name, with a word of what it asks, names someone for it.
    if lang == "zh" and not cut_short and any(_names_who(s, qa.question, lang) for s in ev.sentences(answer, lang)):
        return True
    # Of a reply cut off before a value of the kind asked, the question's words are no answer.
    if cut_short and any(values.kinds(f, lang) for f in facts):
        return False
    # To a question asking who, a finished Chinese reply naming no party or role and offering no figure
    # says nothing of what was asked, whatever words of it it holds ("约定承担连带保证责任" to who the
    # guarantor is).
    # Nor does one naming only the role the question itself names (原告员工 restated to which employee of the
    # plaintiff took the photographs), nor figures on another item (the notary's fee).
    if lang == "zh" and asks_who(qa.question, lang) and not (
        _figure_on_item(answer, qa.question, lang) or parties(answer, lang) or zh_roles(answer) - zh_roles(qa.question)
    ):
        return False
    if lang != "zh" and asks_who(qa.question, lang) and not _names_another(
        answer, qa.question, [p.text for p in item.passages], [p.heading for p in item.passages]
    ):
        # So does a finished English reply to a question asking who that names nobody the question does
        # not name ("produced the notice of the meeting ..." to who gave evidence; the charge naming both
        # accused to who appeared for the second), and, to a question asking which firm or company, one
        # naming people only (the clerks who witnessed a will for the firm that prepared it).
        return False
    # A question with no reference asking where wants a place.
    if not facts and _offers_place(answer, qa.question, lang) is False:
        return False
    if not facts and _ASKS_DATE["zh" if lang == "zh" else "en"].search(qa.question):
        # A question with no reference asking when: a date in a clause on what was asked is a position
        # ("Leave was granted on 20 September 2023" to when the decree was granted), a date situating
        # another item (interest "from 12 October 2022") is none.
        return any(
            "date" in values.kinds(values.without_period_starts(c, qa.question, lang), lang)
            and speaks_of(c, qa.question, lang)
            for c in clauses(answer, lang)
        )
    if period and not _offers_period(answer, key):
        return False
    # Asked until when, a reply naming no end point takes no position: the date a period opens
    # ("自二〇二二年五月起每月……支付抚养费" to when the payments stop) is its start.
    if _ASKS_END["zh" if lang == "zh" else "en"].search(qa.question) and not _ENDS[
        "zh" if lang == "zh" else "en"
    ].search(values.without_period_starts(answer, qa.question, lang)):
        return False
    # To a question asking for a figure, a finished reply offering none takes no position, however many of
    # the question's words it holds ("该车在合肥市发生单方事故" to the sum insured; "超出部分由其在商业三者险
    # 限额内赔付" to what that limit is): a whole amount or nothing paid was read above as a figure.
    # So it does to a question whose reference is a figure and nothing more ("$16,500" for "what was the
    # monthly rent?"; "No rent has been paid since 1 May 2022" names none), and to a question asking for a
    # figure that the set marks impossible.
    # A bare count is a figure too ("312" handbags; English has no kind for counts).
    figure_facts = [f for f in facts if values.kinds(f, lang) or _BARE_COUNT.match(f)]
    asks = asks_figure(qa.question, lang) or bool(facts) and all(_figure_only(f, lang) for f in facts)
    if asks and (figure_facts or not facts) and not _offers_figure(answer, facts, lang, qa.question):
        return False
    # A question the set marks impossible asks for the kind its words ask: a sum offered beside what the reply
    # says of the item asked is a position ("The defendants shall pay the plaintiff's costs, to be taxed" and
    # another item's "judgment for the plaintiff for $352,000" to what amount of costs); a sum pasted on
    # another matter alone is none (a loan disbursed to how much was spent on medical fees).
    # So is a count offered to "how many" ("37 retail customers").
    if (
        not facts
        and (
            _ASKS_AMOUNT[key].search(qa.question) and "money" in values.kinds(answer, lang)
            or _ASKS_COUNT[key].search(qa.question) and _offers_figure(answer, facts, lang, qa.question)
            or _ASKS_RATE[key].search(qa.question) and _offers_figure(answer, facts, lang, qa.question)
        )
        and any(speaks_of(c, qa.question, lang) for c in clauses(answer, lang))
    ):
        return True
    # Asked under which provision, a reply citing none names none ("convicted after trial at Eastern
    # Magistrates' Court on 3 June 2024" to the section of the conviction).
    provisions = {"section", "clause"}
    if _ASKS_PROVISION["zh" if lang == "zh" else "en"].search(qa.question) and any(
        values.kinds(f, lang) & provisions for f in facts
    ) and not values.kinds(answer, lang) & provisions:
        return False
    # To a question asking for a rule (a guideline case and its range, a clause and its period), a reply
    # offering no value of those kinds states no rule, whatever it says of the matter: an issue statement
    # ("The issue for the court is what sentence is appropriate for X"), the question restated ("The law
    # applies to forfeiture of the lease held by X").
    asked_kinds = set().union(*(values.kinds(f, lang) for f in facts)) if facts else set()
    if qa.kind == "rule" and asked_kinds and not values.kinds(answer, lang) & asked_kinds:
        return False
    # To a question asking which court or company, only a named one answers.
    which = _names_which(answer, qa.question, lang)
    if which is not None:
        return which
    # To a how-decided question only an order answers: a finding or the ground a court gave, however many of
    # the question's words it holds ("一审判决对此未予支持……一审法院以……为由" to how the appeal court dealt
    # with the judgment below), orders nothing.
    if _asks_disposition(qa.question, lang):
        return False
    # The question's own words restated ("判决如下。" for "本案是如何判决的") say nothing of what was asked,
    # nor does framing ("通读上述段落，答案的依据如下。法定代表人。原告。" for who the legal representative is).
    claimed = " ".join(m.strip_citations(s) for s in ev.sentences(answer, lang) if not m.is_framing(s, lang))
    said = (m.content_words(claimed, lang) - m.haystack(qa.question, lang)) | (
        m.numbers(claimed, lang) - m.numbers(qa.question, lang)
    )
    if _ASKS_RESPONSE[key].search(qa.question) and rulings.ruling(claimed, lang) and speaks_of(claimed, qa.question, lang):
        # Asked how the court met a submission, a reply restating it with a ruling gives that ruling ("The
        # defendant's case that the breakdowns were caused by overloading fails").
        return True
    if lang == "zh":
        # A single character (the 人 of 保证人) is in many words (法定代表人): only whole words say it.
        topic = {w for w in topic if len(w) > 1} or topic
    return bool(topic) and bool(said) and ev.share(topic, m.haystack(answer, lang)) >= 0.5


_ORDINALS = frozenset("first second third fourth fifth".split())
# The verbs of a court's response to what was put to it.
_EN_RESPONSE = re.compile(
    r"\b(?:dismiss|allow|grant|refus|reject|accept|quash|uphold|upheld|set\s+aside|suspend|succeed|fail|order|award"
    r"|impos|revok|discharg|stay|adjourn)\w*",
    re.I,
)


def _whether_topic(question: str, lang: str) -> set[str]:
    """The words of what an English yes/no question asks whether, its parties' names kept (a reply may
    speak of the party asked in other words: "granted possession" to whether it "gets the premises back")
    and its roles and ordinals aside; empty in Chinese, read by on_topic."""
    if lang == "zh":
        return set()
    asked = without_cases(question)
    return m.content_words(asked, lang) - role_words(asked) - _ORDINALS


def _on_whether(topic: set[str], question: str, s: ev.Sentence, lang: str) -> bool:
    if not topic:
        return ev.on_topic(question, s, lang)
    return len(topic & s.words) >= max(1, round(0.3 * len(topic)))


def answer_first(claims: list[str], item: JudgeItem, lang: str) -> list[str]:
    """The claims with the one that gives the answer first: in a pasted passage it is the sentence
    stating a value of the kind asked on what was asked, wherever it stands (a Yes/No comes first)."""
    qa = item.qa
    if len(claims) < 2 or m.lead_polarity(claims[0], lang):
        return claims
    if is_yesno(qa):
        return _whether_first(claims, qa, lang)
    facts = answer_facts(qa)
    # The facts that give the answer come first: a share count or a date only situates it (the verbose
    # paste "X bought 1,470,000 shares. ... X gained a profit of HK$3,027,000." answers with its second).
    facts = [f for f in facts if not values.situating(f, lang)] or facts
    # A claim giving a key fact's very figures is the answer, however it words the topic ("gained a
    # profit" for "What gain did X obtain").
    for i, claim in enumerate(claims):
        if any(_gives_figures(f, claim, lang) for f in facts):
            return [claim, *claims[:i], *claims[i + 1 :]]
    for i, claim in enumerate(claims):
        on_topic = any(speaks_of(c, qa.question, lang) for c in clauses(claim, lang))
        if any(_states(f, claim, on_topic, lang, qa.question) for f in facts):
            return [claim, *claims[:i], *claims[i + 1 :]]
    asked = set().union(*(values.kinds(f, lang) for f in facts)) if facts else set()
    if asked and asks_figure(qa.question, lang) and qa.answer.strip() in facts:
        # Asked for a figure the reference gives and nothing more, a reply none of whose claims gives it on
        # what was asked answers with the one offering a figure of that kind: "原告于2018年7月2日入职" (the
        # hiring date) beside the injury restated without its date, to the day the injury happened.
        for i, claim in enumerate(claims):
            # A date counts when a date is asked; a share count only situates.
            if asked & values.kinds(claim, lang) - {"shares"}:
                return [claim, *claims[:i], *claims[i + 1 :]]
    if not facts:
        # A question with no reference (marked impossible, sometimes wrongly): the claim on what it asks,
        # with a figure where it asks for one, is the answer ("花去医疗费23,417.60元" of a pasted finding).
        for i, claim in enumerate(claims):
            on_topic = any(speaks_of(c, qa.question, lang) for c in clauses(claim, lang))
            offers = not asks_figure(qa.question, lang) or _offers_figure(claim, [], lang, qa.question)
            if on_topic and offers and topic_words(qa.question, lang):
                return [claim, *claims[:i], *claims[i + 1 :]]
    return claims


def _gives_figures(fact: str, claim: str, lang: str) -> bool:
    """Whether a claim gives a fact's very figures: its lengths for a term ("a total of 4 years and 6 months",
    not "6 months of the fraud sentence ... reduced to 4 years"), its numbers otherwise."""
    lengths = values.durations(fact, lang)
    if lengths:
        return lengths <= values.durations(claim, lang)
    return bool(m.numbers(fact, lang)) and m.numbers(fact, lang) <= m.numbers(claim, lang)


def _whether_first(claims: list[str], qa: QA, lang: str) -> list[str]:
    """The claims of a reply to a yes/no question that gives no Yes/No, the one that speaks of what the
    question asks whether first (the first defendant's "three previous convictions" of a pasted passage, not
    the plea before it, to whether the second had any): the claim sharing most of the question's words,
    names and roles aside, where it shares more than the first does."""
    topic = {w for w in topic_words(qa.question, lang) if lang != "zh" or len(w) > 1}
    if not topic:
        return claims
    shares = [ev.share(topic, m.haystack(c, lang)) for c in claims]
    best = max(range(len(claims)), key=lambda i: (shares[i], -i))
    if shares[best] <= shares[0]:
        return claims
    return [claims[best], *claims[:best], *claims[best + 1 :]]
