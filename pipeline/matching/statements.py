"""Sentences that are not the court's finding, and filler that asserts what no passage says.

An issue statement ("The Tribunal must decide whether X may recover possession", "争议焦点为……") or a
party's submission ("The respondent contended that ...", "被告辩称……") names the outcome without deciding
it: read as the court's finding it supports nothing (docs/method.md §4). Filler ("This is the approach
usually taken in ... cases", "根据相关法律规定") asserts a generality the passages do not make: a secondary
claim no passage supports.
"""

from __future__ import annotations

import re

from pipeline.matching import cues_zh

_EN_ISSUE = re.compile(
    r"\b(?:(?:issue|question)s?\s+(?:for|before)\s+the\s+(?:court|tribunal)\s+(?:is|are|was|were)"
    r"|(?:a\s+)?(?:further|main|central|remaining|first|second|only)\s+(?:issue|question)\s+(?:is|was)"
    r"|the\s+(?:issue|question)\s+(?:is|was)\s+(?:whether|what|how)"
    r"|(?:must|has\s+to|is\s+to|will)\s+(?:also\s+)?(?:decide|determine|consider)\s+(?:whether|what|how)"
    r"|(?:contended|submitted|argued|alleged|asserted|claimed|maintained|urged)\s+that"
    r"|(?:contends|submits|argues|alleges|asserts|maintains|urges)\s+that"
    r"|(?:submission|contention|argument|case)\s+(?:was|is)\s+that"
    r"|(?:asked|applied|sought)\s+(?:for|to)\b"
    r"|\bcounterclaimed\b)",
    re.I,
)
_ZH_ISSUE = re.compile(
    # A prayer's list item ("二、判令被告赔偿精神损害抚慰金2,200元"): a court orders without 判令.
    r"争议焦点|本案(?:的)?焦点|诉称|辩称|声称|主张|诉讼请求|请求(?:判令|法院|本院)|提出(?:上诉|申请|抗辩)"
    r"|^\s*[一二三四五六七八九十\d]+[、.．]\s*判令"
    # A criminal judgment's defence and prosecution say what they say ("辩护人凌x5提出,……应认定为自首",
    # "公诉机关认为,……建议判处"): the court rules on it after ("该意见本院不予采纳").
    r"|辩护人[^，,。；;：:]{0,10}(?:提出|认为)|(?:公诉机关|检察院)[^，,。；;：:]{0,6}认为"
    r"|(?:要|须|需|应)(?:当)?(?:审查|考虑|认定|确定|判断)(?:的)?(?:是否|问题)|是否(?:应当|应|可以)[^。；]*?(?:问题|争议)"
)
# A sentence that also states the court's decision ("本院对原告主张的加班费不予支持", "对原告主张的合理开支,
# 本院酌情支持3,000元", "The Tribunal rejects the argument that ...") is a finding, whatever submission it
# names.
_EN_FINDING = re.compile(r"\b(?:finds?|found|rejects?|rejected|accepts?|accepted|refused|orders?|ordered|dismissed)\b", re.I)
# So is one that says the party failed to prove what it says ("被告辩称其商品系从他人处进货,但未能提供进货
# 凭证"): no party says that of itself.
_ZH_FINDING = re.compile(
    r"(?:本院|法院|我会|本委)(?:经审理)?(?:认为|认定|查明|决定|判决|裁定|确认|对)|经审理查明|(?:不予|予以)(?:支持|采纳|采信|认可|确认)"
    rf"|{cues_zh.DECLINES}"
    # ... or fixing the sum itself ("交通费,原告主张2,500元,本院酌定1,200元").
    r"|(?:本院|法院)(?:酌定|酌情确定|核定|确定为|调整为)"
    r"|(?:本院|法院)(?:依法|酌情|酌定|部分)(?:予以)?(?:支持|采纳|认可|确认|调整)"
    # The court dismissing what was claimed ("本院依法予以驳回"), not a party asking it to (请求驳回).
    r"|(?:本院|依法|予以)[^，,。；;]{0,4}驳回"
    r"|[，,；;]\s*但(?:是|其)?(?:未能|未|没有|无法|不能)(?:提供|举证|举出|证明)"
    # The court telling the parties how to appeal ("如不服本判决,……通过本院或者直接向……提出上诉"): its own words.
    r"|如不服本判决|(?:通过本院|直接向)[^。；;]{0,30}提出上诉"
)
# A claim that says it reports a submission may rest on one ("The respondent argued that ...").
# (A question on what a party said: "At what rate did Ms Chu say Mr Wan had agreed to pay interest?")
_EN_REPORTED = re.compile(
    r"\b(?:contended|submitted|argued|alleged|asserted|claimed|counterclaimed|asked|sought)\b"
    r"|\bdid\s+[^?]{0,60}\b(?:say|claim|seek|allege|contend|submit|argue)\b",
    re.I,
)
# (A question on a defence: "殷某对漏水提出了什么抗辩?", "被告的答辩意见是什么"; on what a party said or the
# prosecution alleged: "被告称荆x9名下车辆的评估价值是多少", "公诉机关指控……".)
_ZH_REPORTED = re.compile(r"诉称|辩称|主张|请求|申请|抗辩|答辩|辩解|声称|自称|指控|(?:告|人|方|局|公司|[某\d])称(?!为|号)")

# Filler of either language. English: a claim of what is usual in a kind of case; Chinese: an appeal
# to unnamed law or to practice.
_EN_FILLER = re.compile(
    r"(?:^|(?<=[.;!?]\s))[^.;!?]*\b(?:approach|practice|course|position)\s+(?:usually|normally|generally|typically|commonly)\s+"
    r"(?:taken|adopted|followed|applied)\b[^.;!?]*[.;!?]?"
    r"|(?:^|(?<=[.;!?]\s))[^.;!?]*\b(?:as\s+is\s+(?:usual|common|standard|typical)|in\s+line\s+with\s+(?:usual|standard|common)\s+practice)\b[^.;!?]*[.;!?]?",
    re.I,
)
_ZH_FILLER = re.compile(
    r"[^。；;！!？?]*(?:案件|实务|实践|司法)[^。；;！!？?]*(?:通常|一般|往往|普遍)[^。；;！!？?]*(?:处理|做法|认定|判决)[^。；;！!？?]*[。；;！!？?]?"
    r"|(?:根据|依据|依照|按照)(?:相关|有关)(?:法律)?(?:法规|规定|法律)(?:的规定)?[，,]?"
    r"|(?:这|此)(?:是|也是)(?:法律|司法)?(?:实务|实践)中的?(?:通常|一般|常见)做法[。；;]?"
)


# A thing that "had been found" is the submission's narrative ("... would not have united even if it had been
# found on 7 February"), not the court finding.
_EN_NOT_FINDING = re.compile(r"\bbeen\s+found\b", re.I)


def is_issue_or_submission(sentence: str, lang: str) -> bool:
    """A sentence that states what is to be decided or what a party says, not what was decided."""
    issue, finding = (_ZH_ISSUE, _ZH_FINDING) if lang == "zh" else (_EN_ISSUE, _EN_FINDING)
    said = sentence if lang == "zh" else _EN_NOT_FINDING.sub(" ", sentence)
    return bool(issue.search(sentence)) and not finding.search(said)


def continues_submission(previous: str, sentence: str) -> bool:
    """Whether a Chinese sentence goes on with the submission the sentence before it states or goes on with:
    that one ends at a ；or ; and this one states no finding ("被告一辩称，事发当日有大风天气；" then "招牌由被告三制作
    安装，应由被告三承担责任。" is still what 被告一 says, and so is each later limb after a ；)."""
    return previous.rstrip().endswith(("；", ";")) and not _ZH_FINDING.search(sentence)


_ZH_CLAUSE_START = re.compile(r"[，,；;：:]")


def submission_start(text: str) -> int | None:
    """Where the clause holding a Chinese issue or submission cue starts (None without one)."""
    if not is_issue_or_submission(text, "zh"):
        return None
    cue = _ZH_ISSUE.search(text)
    if cue is None:
        return None
    starts = [c.end() for c in _ZH_CLAUSE_START.finditer(text, 0, cue.start())]
    return starts[-1] if starts else 0


def reports_submission(claim: str, lang: str) -> bool:
    return bool((_ZH_REPORTED if lang == "zh" else _EN_REPORTED).search(claim))


def split_filler(text: str, lang: str) -> tuple[str, list[str]]:
    """The text without its filler, and the filler pieces taken out."""
    pattern = _ZH_FILLER if lang == "zh" else _EN_FILLER
    found = [f.group(0).strip() for f in pattern.finditer(text) if f.group(0).strip()]
    return (pattern.sub(" " if lang != "zh" else "", text).strip(), found) if found else (text, [])
