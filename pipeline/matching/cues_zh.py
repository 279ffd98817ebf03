"""Chinese cue words and patterns of the rule judge: negation, refusal, Yes/No leads, framing, clauses.

Kept apart from the English ones in matching.py so each language's list can be read and extended in one
glance. Chinese negation sits in single characters (不, 未, 没, 无, 非, 否) that also occur inside
words that negate nothing (是否 "whether", 没收 "confiscate", 无论 "regardless"); those words are
removed before the characters are looked for.
"""

from __future__ import annotations

import re

# Common single-character surnames: an anonymised name is one of them plus x/X and digits, digits, or 某 (曹x0,
# 朱0, 李某). One list for every reader of names (matching.zh_name_spans, anchors).
SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蔡蒋余杜叶程苏魏吕丁"
    "任沈姚卢姜崔钟谭陆汪范廖石金韦贾夏付傅方邹熊白孟秦邱侯江尹薛闫段雷龙黎史陶贺毛郝顾龚邵万钱严覃"
    "武戴莫孔汤易常温康施文牛樊葛邢安齐乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯"
    "纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古"
    "吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫"
    "寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝萧井幸晁储洪蔺奚羊阎廉郜贝芮屠鞠宓扈阚嵇庹湛浦荆匡"
    # Rarer surnames of the classic list that no common word of a judgment opens before 某 or a digit (not
    # 盖 of 加盖某某公司印章, 权, 印, 索, 水, 国 ...).
    "乌冼凤弓戎揭昝栗桓檀濮花茅荀蒯蔚訾谌逯邰邴郁郦鄢钮闻阙隗靖巴酆禹狄贲糜羿汲郗钭厉韶蓟鄂赖胥苍莘逄堵宰雍璩郏茹宦庾殳夔厍乜竺卻邸"
)

# The court declining to deal with what a party raised ("本院在本案中不予处理,被告可另行主张"): a ruling on it.
DECLINES = r"不予(?:处理|理涉|评判|准许)"

NEGATION_CHARS = "不未没无非否"
# Outcome verbs that negate as "dismissed"/"refused" do in English.
NEGATION_WORDS = ("驳回", "拒绝", "撤销", "免予", "免于", "失败")
# Words containing a negation character that do not make a sentence negative.
NOT_NEGATION = (
    "是否",
    "能否",
    "可否",
    "与否",
    "否则",
    "不仅",
    "不但",
    "不论",
    "不管",
    "不断",
    "不久",
    "不动产",
    # Causes of action and legal terms that hold a negation character (不当得利纠纷, 不可抗力所致).
    "不当得利",
    "不可抗力",
    "不正当竞争",
    "无因管理",
    "无论",
    "未来",
    "未成年",
    "无期",
    "非常",
    "非法",
    "除非",
    "没收",
)
_NOT_NEGATION = re.compile("|".join(sorted(NOT_NEGATION, key=len, reverse=True)))
# An A-not-A question (有没有, 是不是, 能不能, 可不可以) or 有无 asks "whether": it negates nothing, so a
# "是。" answering "证监会有没有没收……？" is the bottom line of a positive question, as 是否 is.
_A_NOT_A = re.compile(r"([\u4e00-\u9fff])[不没]\1|有无")

# Phrases that on their own say the answer cannot be given from what was shown.
_REFUSAL = re.compile(
    r"(?:没有|并无|无|缺乏|缺少|不包含|未包含|未提供|没有提供|不具备)(?:足够|充分|充足|相关|具体|明确)的?"
    r"(?:信息|资料|依据|证据|内容|细节|说明)"
    r"|(?:信息|资料|依据|证据|内容)(?:不足|不够|不充分|有限)"
    r"|(?:无法|不能|难以|不可能|没法|无从)(?:据此)?(?:回答|确定|判断|得知|得出|确认|知道|推断|作答|给出|回复)"
    r"|不足以(?:回答|确定|判断|得出|作答)"
    r"|(?:只能|只会|将是|会是|纯属)(?:一种)?猜测"
    # "无法根据所提供的段落回答": the material shown may come between the verb and 回答 (and only that:
    # "不能根据现有证据确定责任" is a court's finding, not a refusal).
    r"|(?:无法|不能|难以|没法|无从)(?:根据|依据|仅凭|凭|从)[^，。；！？]{0,12}?(?:段落|材料|资料|上下文|文本|原文)"
    r"[^，。；！？]{0,4}?(?:回答|确定|判断|得知|得出|作答|给出)"
    # "需要看到决定的相关部分，才能给出可靠的回答": the answer itself made conditional on more material
    # ("需经鉴定才能判断过错" is a finding, so 判断 is not enough).
    r"|需要[^。！？；]{0,20}才能[^。！？；]{0,10}(?:回答|作答|答复)"
)
# "没有提及 ..." is a refusal only when its subject is what was shown (or the answerer), so that
# "公司未披露该信息" stays an answer.
_MISSING = re.compile(
    r"(?:未|没有|并未|均未|都没有|并没有|没)(?:有)?(?:提及|提到|涉及|说明|载明|记载|包含|列明|写明|给出|指出|讨论|回答)"
    r"|只字未提|(?:都|均|也)?(?:找不到|查不到|看不到)|没有任何(?:内容|信息|资料|依据)"
)
_SHOWN = re.compile(r"段落|材料|上下文|文本|文中|原文|资料|所给|所提供|提供的|以上|上述|这些|它们|我")

# A Yes/No lead: 是/是的/对 or 否/不是/不, then punctuation (so 是否, 不得 and 对张某…… are no lead).
# As in English, a list marker may come first ("- 是", "1、否"). The one home of this pattern: the rule
# judge reads an answer's bottom line with it, and the rewriter the polarity of the answer it rewrites.
# "这个问题的答案是：否。" leads with its 否 as well.
# The Yes/No may follow an answer's label ("答：是。", "答案:否", "答案如下：\n1. 是") or a citation of the
# passages ("根据第[1]段，是。"): framing that claims nothing, so the Yes/No is still the reply's first word.
_LEAD = re.compile(
    r"^\s*(?:[-*\u2022]\s*|\d+[.)、]\s*)?(?:根据[^，,。：:\n]{0,12}?段落?[，,：:]\s*)?(?:(?:这个|该)?问题的)?"
    r"(?:(?:答案|回答)(?:是|为)[：:]?\s*|(?:答案|回答|答)(?:如下)?[：:]\s*(?:[-*\u2022]\s*|\d+[.)、]\s*)?)?"
    r"(是的|是|对|否|不是|不)(?=[\s，,。.；;！!：:—\-]|$)[\s，,。.；;！!：:—\-]*"
)
_LEAD_VALUE = {"是的": "yes", "是": "yes", "对": "yes", "否": "no", "不是": "no", "不": "no"}
# Sentence ends, and a comma before "but/however" so a hedge and an answer in one sentence separate.
_CLAUSE = re.compile(r"(?<=[。！？；!?;\n])|[，,]\s*(?=但是|但|然而|不过|可是)")

# Words of framing sentences ("综上所述，答案如下。") that claim nothing.
FRAMING = frozenset(
    """综上 综上所述 总之 总而言之 简而言之 简言之 可见 看来 来看 显示 表明 结论 关键 要点 首先 其次
    最后 如下 以下 下列 阅读 分析 考虑 结合 得出 给出 相关 内容 情况 回答 答案""".split()
)
# Currency words go with their number: "4,665,091.79元" and "人民币4665091.79" state the same fact.
CURRENCY = frozenset("元 万元 亿元 人民币 美元 港元 港币 币".split())


# A term quoted or a law's title names what it names: its negation ("已付费用概不退还"条款, 《反不正当竞争法》)
# is no negation of the sentence's (a quote of a whole passage, longer, is read).
_NAMED = re.compile(r"“[^“”]{1,15}”|「[^「」]{1,15}」|《[^《》]{1,40}》")


def is_negative(text: str) -> bool:
    stripped = _NOT_NEGATION.sub(" ", _A_NOT_A.sub(" ", _NAMED.sub(" ", text)))
    return any(ch in stripped for ch in NEGATION_CHARS) or any(w in stripped for w in NEGATION_WORDS)


def refusal_cue(clause: str) -> bool:
    if _REFUSAL.search(clause):
        return True
    return bool(_MISSING.search(clause) and _SHOWN.search(clause))


def lead_polarity(text: str) -> str | None:
    match = _LEAD.match(text)
    return _LEAD_VALUE[match.group(1)] if match else None


def strip_lead(text: str) -> str:
    return _LEAD.sub("", text, count=1)


def clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSE.split(text.strip()) if c and c.strip()]
