"""Who a text is about: the parties it names, for the party-aware support of the rule judge.

A quote supports a claim only about the party it is about (docs/method.md §4). A party is a person or a
company as decisions name them: an English name with a hyphenated given name ("Chan Tai-man", "Peter Lau
Ka-ho"), a company ("Lee Land Limited"); a Chinese 某-name (李某, 王某某,
张某甲), an anonymised name as judgments are published (曹x0, 朱0), a company (某置业有限公司, 乙公司).
Courts, statutes, places and cited authorities ("HKSAR v Kwan Ming") are not parties, nor is a titled
surname ("Mr Chan"), which cannot tell two Chans apart. Two names are the
same party only when they are the same name: "Yip Kin-fai" is not "Yeung Kin-fai", "Raymond Lo Wai-lun"
is not "Lo Wai-lun", 张某 is not 李某, 曹x0 is not 曹x1.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pipeline import language
from pipeline import matching as m

Party = frozenset[str]

# A run of capitalised words; the hyphenated given name ("Tai-man") marks a person the way decisions of
# Hong Kong write names, a suffix marks a company.
_EN_RUN = re.compile(r"[A-Z][A-Za-z'’]*(?:-[A-Za-z]+)*(?:\s+[A-Z][A-Za-z'’]*(?:-[A-Za-z]+)*)*")
_GIVEN = re.compile(r"^[A-Z][a-z]+-[a-z]+$")
_COMPANY = frozenset("limited ltd company corporation holdings bank inc llc llp plc".split())
# Capitalised words that open a sentence or a clause before a name ("Sentencing Chan Tai-man", "Under
# the order, ..."): never the first word of a name.
_NOT_NAME = frozenset(
    "although despite since because while after before under for in on at by with as when where if "
    "sentencing ordering finding holding accordingly further finally moreover however thus therefore "
    "passage passages yes no reading in conclusion summary".split()
)

# Titles before a name ("Mr Wong Siu-fun" is Wong Siu-fun).
_TITLES = frozenset("mr mrs ms miss mdm madam dr prof professor sir".split())

# Chinese companies: 某 (not the 某 of a person's 李某) or a placeholder letter (甲乙丙) then up to a
# dozen characters ending in 公司; or 某 after a place named without its 省/市 (南京某建设工程有限公司), where
# the name runs on to 公司 with no particle or verb in it (so 李某向某公司 is 李某 and 某公司).
_ZH_COMPANY = re.compile(
    r"(?:(?:(?<![\u4e00-\u9fff])某|(?<=[告人方为于向与和对及在由将被的了是从等其该系])某|[甲乙丙丁戊])"
    rf"[\u4e00-\u9fff]{{0,12}}?|某{m.ZH_NAME_CHAR}{{0,12}}?)"
    r"(?:有限责任公司|股份有限公司|有限公司|公司)"
)


# Chinese public bodies, the defendants of administrative suits and the bodies that assign counsel: a
# place first (合肥市某区, 株洲市石峰区, 某村), then up to fourteen characters ending in what the body is
# (市场监督管理局, 法律援助中心, 街道办事处, 村民委员会, 人民政府). It starts after no particle, role or
# verb ("由被告洛阳市……局" is 洛阳市……局), so the court's "由……负担" names the body, not 由.
_ZH_PUBLIC_BODY = re.compile(
    r"(?:(?<![\u4e00-\u9fff])|(?<=[告人方为于向与和对及在由将被的了是从等其该系销认令诉经]))"
    r"(?![由向经系与和及对在将被的撤确责诉告])"
    r"(?:[\u4e00-\u9fff]{1,3}?(?:省|自治区|市|县|区)|某)"
    r"[\u4e00-\u9fff]{0,14}?(?:法律援助中心|办事处|局|委员会|人民政府)"
)

# Roles name a party by its place in the case, not by who it is: what a question asks, names and roles
# aside, is its topic.
_EN_ROLES = re.compile(
    r"\b(?:tenant|landlord|defendant|respondent|applicant|plaintiff|appellant|claimant|victim|owner|accused"
    r"|offender|prosecution|party|parties)s?\b",
    re.I,
)
# The roles a judgment's header lists its parties by (longer first: 被上诉人 before 上诉人).
_HEADER_ROLES = "被上诉人|上诉人|被申请人|申请人|被告人|被告|原告|第三人"
# A header role opening a text, with its number and colon ("被告二：", "被告人"): what stands before a name.
ZH_LEADING_ROLE = re.compile(rf"^(?:{_HEADER_ROLES})[一二三]?[：:]?")
_ZH_ROLES = re.compile(rf"{_HEADER_ROLES}|当事人|出租人|承租人|被害人|公诉机关|本案|该案")


# A document's title (《中国证监会行政处罚决定书（李某）》) or case number ("在（2016）皖1125刑初219号案中")
# names the source, not what is asked.
_TITLE = re.compile(r"《[^》]*》|[（(]\d{4}[）)][^\s，,。；;（()）]{2,24}?号(?:案中?)?")
# A case as a question or a passage heading names it: its number, or the title of its judgment.
_CASE_NUMBER = re.compile(r"[（(](\d{4})[）)]([^\s，,。；;（()）]{2,24}?号)")
_JUDGMENT_TITLE = re.compile(r"[^\s《》，,。；;]{2,60}?(?:判决书|裁定书|决定书|调解书)")


# An English question framed by its case ("In Chan v Wong, how much ..."), a heading naming one.
# A matter "Re" its subject ("In Re Tsang Yuk-lan (deceased), ...") is framed the same way.
_EN_FRAME = re.compile(
    r"^\s*In\s+([A-Z][^,]{0,80}?\s+v\.?\s+[A-Z][^,]{0,80}?|[Rr]e\s+[A-Z][^,]{0,80}?),\s*"
)
# A question closed by the case it asks about ("What starting point did the court take in HKSAR v Shum Ka-wing?").
_EN_CLOSING_FRAME = re.compile(r"\bin\s+([A-Z][^,?]{0,80}?\s+v\.?\s+[A-Z][^,?]{0,80}?)\s*\?\s*$")
_EN_CASE = re.compile(
    r"[A-Z][\w.'’&-]*(?:\s+[A-Z][\w.'’&-]*)*\s+v\.?\s+[A-Z][\w.'’&-]*(?:\s+[A-Z][\w.'’&-]*)*"
    r"|\bRe\s+[A-Z][\w.'’&-]*(?:\s+[A-Z][\w.'’&-]*)*"
)


@lru_cache(maxsize=1 << 14)
def cases(text: str, heading: bool = False) -> frozenset[str]:
    """The cases a text names: case numbers (in one form: "(2016)皖1125刑初219号"), and the titles of
    judgments, quoted in 《》 or (in a passage heading) standing as the heading itself; in English, the
    case a question is framed by ("In Chan v Wong, ...") or a heading names ("Chan v Wong")."""
    if not any("\u4e00" <= ch <= "\u9fff" for ch in text):
        if heading:
            return frozenset(_case_name(c) for c in _EN_CASE.findall(text))
        frame = _EN_FRAME.match(text) or _closing_frame(text)
        if not frame:
            return frozenset()
        # The frame names the case as its heading would ("In DCCJ 4417/2022 Lau Mei-ling v Kwan Yee-man,",
        # "In HKSAR v Lam Wing-kei and Ho Chi-keung,"): by the parties either side of its "v", without the
        # number or the second accused.
        named = _EN_CASE.findall(frame.group(1))
        return frozenset({(named[0] if named else frame.group(1)).lower()})
    found = {f"({year}){rest}" for year, rest in _CASE_NUMBER.findall(text)}
    bare = _CASE_NUMBER.sub(" ", text)
    titles = re.findall(r"《([^》]*)》", bare) if not heading else _JUDGMENT_TITLE.findall(bare)
    return frozenset(found | {t.strip() for t in titles if t.strip()})


def _closing_frame(text: str) -> re.Match[str] | None:
    """A question closed by the one case it asks about, titled as its heading would title it ("... take in
    HKSAR v Shum Ka-wing?"); not a title it shortens ("in Yung Kwai-fong and Kei Lap-man v Harbourgate?")."""
    found = _EN_CLOSING_FRAME.search(text)
    return found if found and _EN_CASE.fullmatch(found.group(1)) else None


def _case_name(found: str) -> str:
    """A case as `cases` names it: lower-cased, without a capitalised word opening the sentence before it
    ("In Kwong Pui-shan v Silverstar Arcade Limited the court held ..." cites Kwong Pui-shan v ...)."""
    words = found.split()
    while len(words) > 3 and words[0].lower() in _NOT_NAME:
        words = words[1:]
    return " ".join(words).lower()


def cited_cases(text: str) -> frozenset[str]:
    """The cases an English sentence cites ("As stated in Chan Kwok-wah v Hip Shing ...", "HKSAR v Kwan Wai
    laid down ..."), in the form `cases` gives a question's frame; none for Chinese text."""
    return frozenset() if language.has_cjk(text) else cases(text, heading=True)


# English decisions with two accused or two plaintiffs name each by its place: "the first defendant",
# "the second plaintiff's invoice", "Fung Tsz-lok (A2)". Such a role names one party as a name does: the
# first defendant's convictions are not the second's. A role is read as its place and its side (an
# accused is a defendant; A2 is the second appellant or the second accused, as judgments use it).
_EN_ORDINAL_ROLE = re.compile(
    r"\b(first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)\s+(defendant|accused|offender|appellant|applicant"
    r"|plaintiff|claimant|petitioner|respondent)s?\b",
    re.I,
)
_ROLE_ABBREVIATION = re.compile(r"\b([ADPR])([1-5])\b")
_PLACES = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}
_SIDES = {"defendant": "D", "accused": "D", "offender": "D", "appellant": "A", "applicant": "A",
          "plaintiff": "P", "claimant": "P", "petitioner": "P", "respondent": "R"}
_ABBREVIATED = {"A": "AD", "D": "D", "P": "P", "R": "R"}


def roles_given(asked: list[Party], text: str) -> frozenset[str]:
    """The ordinal roles an English text gives the parties asked, by naming the party right after its role
    in the same clause ("The first defendant, Ms Cheung Wing-yin, pleaded guilty", "the second applicant is
    her son, Mr Ng Chun-hin"): a question naming Cheung Wing-yin asks about the first defendant, and "The
    second defendant is sentenced to 12 months" is about someone else."""
    if not asked or language.has_cjk(text):
        return frozenset()
    found: set[str] = set()
    for role in _EN_ORDINAL_ROLE.finditer(text):
        clause = re.split(r"[;.]\s|\s\(|\band\b", text[role.end():role.end() + 80], maxsplit=1)[0]
        named = parties(clause, "en")
        if named and names_any(named[:1], asked):
            found |= ordinal_roles(role.group(0))
    return frozenset(found)


def roles_in_title(asked: list[Party], heading: str) -> frozenset[str]:
    """The ordinal roles an English case title gives the parties asked by their order on its side: in
    "HKSAR v Cheung Wing-yin and Lau Chun-pong" Cheung Wing-yin is the first defendant (or respondent), in
    "Tse Lai-ping and Ng Chun-hin v Director of Immigration" Ng Chun-hin the second applicant (or plaintiff,
    appellant, petitioner), as the judgment calls them."""
    if not asked or language.has_cjk(heading) or " v " not in heading:
        return frozenset()
    found: set[str] = set()
    # An accused who appeals is the appellant of the same title ("HKSAR v Yeung Kin-fai and Fung Tsz-lok").
    for side, codes in zip(heading.split(" v ", 1), ("PA", "DRA"), strict=True):
        for place, name in enumerate(re.split(r"\s+and\s+|,\s*", side), start=1):
            if place <= len(_PLACES) // 2 and names_any(parties(name, "en")[-1:], asked):
                found |= {f"{place}{code}" for code in codes}
    return frozenset(found)


_ROLE_MENTION = re.compile(f"(?P<place>{_EN_ORDINAL_ROLE.pattern})|{_EN_ROLES.pattern}", re.I)


def without_titled_roles(text: str, asked: list[Party], headings: list[str]) -> str:
    """An English text without the roles case titles give the parties asked ("the first defendant's new
    managing director" of Wonder Crest, first defendant of "Kam Tai ... v Wonder Crest ... and Sunwah ..."; a
    bare "the appellant" of the one appealing): those roles name the parties asked, no one else."""
    titled = frozenset().union(*(roles_in_title(asked, h) for h in headings)) if headings else frozenset()
    if not titled:
        return text
    sides = {code[-1] for code in titled}

    def named(role: re.Match[str]) -> str:
        said = role.group(0)
        if role.group("place"):
            return " " if ordinal_roles(said) <= titled else said
        # "the defendants" are more than the one asked.
        return " " if _SIDES.get(said.lower(), "") in sides else said

    # One pass, an ordinal role read whole ("the second defendant" is not a bare "defendant").
    return _ROLE_MENTION.sub(named, text)


def zh_title_role(asked: list[Party], heading: str) -> str | None:
    """The role a Chinese first-instance title gives the party asked: in "卢x9与龚某财产损害赔偿纠纷一审民事判决书"
    (or "卢x9诉龚某……") 卢x9 is the 原告 and 龚某 the 被告; None for an appeal's title (which side appealed it
    does not say), a criminal one or a party it does not name."""
    if not asked or "二审" in heading or "再审" in heading:
        return None
    sides = _title_sides(heading)
    if sides is None:
        return None
    if names_any(parties(sides[0], "zh"), asked):
        return "原告"
    if names_any(parties(sides[1], "zh"), asked):
        return "被告"
    return None


def _title_sides(heading: str) -> tuple[str, str] | None:
    """A Chinese title's two sides of its 与 or 诉 (plaintiffs, defendants); None without one."""
    split = re.search(r"与|诉", heading)
    return (heading[: split.start()], heading[split.end() :]) if split else None


@lru_cache(maxsize=1 << 14)
def ordinal_roles(text: str) -> frozenset[str]:
    """The parties an English text names by an ordinal role, each as place and side ("2D" for the
    second defendant; "A2" gives 2A and 2D); none for Chinese text."""
    if language.has_cjk(text):
        return frozenset()
    found = {f"{_PLACES[n.lower()]}{_SIDES[r.lower()]}" for n, r in _EN_ORDINAL_ROLE.findall(text)}
    found |= {f"{n}{side}" for a, n in _ROLE_ABBREVIATION.findall(text) for side in _ABBREVIATED[a]}
    return frozenset(found)


def has_role(text: str, lang: str) -> bool:
    """Whether a Chinese text names a party by its role (原告, 被告人, 上诉人; not 本案 or 该案)."""
    return lang == "zh" and bool(zh_roles(text))


def zh_roles(text: str) -> set[str]:
    """The roles a Chinese text names parties by (原告, 被告人, 上诉人; not 本案 or 该案)."""
    return set(_ZH_ROLES.findall(text)) - {"本案", "该案"}


def role_words(text: str) -> set[str]:
    """The roles an English text names a party by ("the defendant", "the applicants"), singular."""
    return {r.lower().rstrip("s") if r.lower() not in ("parties",) else "party" for r in _EN_ROLES.findall(text)}


def en_roles_of(asked: list[Party], texts: list[str]) -> set[str]:
    """The roles English texts give the parties asked by naming them right after the role ("The appellant,
    Ms Tsui Wing-kwan, ..."), singular as role_words gives them."""
    found: set[str] = set()
    for text in texts:
        for role in _EN_ROLES.finditer(text):
            after = parties(text[role.end() : role.end() + 40], "en")
            if after and names_any(after[:1], asked):
                found |= role_words(role.group(0))
    return found


def roles_of(party: Party, text: str, lang: str) -> set[str]:
    """The roles a Chinese text gives a party by writing the role right before its name ("原告梁x6",
    "被上诉人（原审原告）：段x7" gives 被上诉人)."""
    if lang != "zh":
        return set()
    return {r.group(0) for r in _ZH_ROLES.finditer(text) if _named_after(text, r.end()) == party} - {"本案", "该案"}


def role_holder(text: str, role: str, lang: str) -> Party | None:
    """The party a Chinese text names right after the first mention of a role ("原告孙0"); None when the
    role stands alone ("由原告直接抚养")."""
    at = text.find(role) if lang == "zh" else -1
    return _named_after(text, at + len(role)) if at >= 0 else None


def _named_after(text: str, end: int) -> Party | None:
    """The party named right after a role that ends at `end`: past a gloss of the role in the court below
    and a header's colon ("上诉人（原审被告）：深圳市某电子有限公司")."""
    rest = text[end : end + 40]
    rest = rest[_ROLE_GLOSS.match(rest).end() :]  # type: ignore[union-attr]
    spans = m.zh_name_spans(rest)
    if spans and spans[0][0] == 0:
        return spans[0][2]
    # A company's place opens its name: nothing else may come first.
    company = _ZH_COMPANY.search(rest)
    if company and not re.search(r"[，,。；;：:、与和及]", rest[: company.start()]):
        return frozenset({company.group(0)})
    return None


# A Chinese question naming a party by its place: 第二被告人 (an accused, by the order a criminal title lists
# them), 被告一 (a defendant, by its header entry "被告一：慈溪市某某五金厂").
_ZH_ORDINAL_ACCUSED = re.compile(r"第([一二三四五])被告人")
_ZH_ORDINAL_DEFENDANT = re.compile(r"被告([一二三四五])(?![审])")
_ZH_NUMERALS = "一二三四五"
_DEFENDANT_ENTRY = re.compile(r"(?:^|(?<=[。；;]))\s*被告([一二三四五])[：:]")


def _numbered_defendants(texts: list[str]) -> list[tuple[str, Party | None]]:
    """The numbered defendants' header entries of Chinese texts ("被告二：姜x2"), in order: numeral, party."""
    return [(e.group(1), _named_after(text, e.end())) for text in texts for e in _DEFENDANT_ENTRY.finditer(text)]


def zh_ordinal_party(question: str, heading: str, texts: list[str]) -> Party | None:
    """The party a Chinese question asks about by its place alone (在……案中，第二被告人……; 被告一的投资人), read
    from its judgment: the heading of a criminal judgment ("樊某、柏x4滥伐林木罪一审刑事判决书": 柏x4 is the
    第二被告人), or the header entry of that defendant in one of its passages' `texts`; None when neither says."""
    accused = _ZH_ORDINAL_ACCUSED.search(question)
    if accused is not None:
        if "刑" not in heading:
            return None
        listed = parties(heading, "zh")
        place = _ZH_NUMERALS.index(accused.group(1)) + 1
        return listed[place - 1] if len(listed) >= place else None
    defendant = _ZH_ORDINAL_DEFENDANT.search(question)
    if defendant is None:
        return None
    return next((owner for numeral, owner in _numbered_defendants(texts) if numeral == defendant.group(1)), None)


def zh_numbered_in(text: str) -> frozenset[str]:
    """The numbered defendants a Chinese text names by place ("被告一作为招牌的所有人" names 被告一)."""
    return frozenset(f"被告{n}" for n in _ZH_ORDINAL_DEFENDANT.findall(text))


def zh_numbered_roles(party: Party, heading: str, texts: list[str]) -> frozenset[str]:
    """The numbered roles a Chinese judgment gives a party: its header entry ("被告二：姜x2") or its place among
    two or more defendants of a first-instance title ("……与程某、姜x2……纠纷一审民事判决书": 被告二, 第二被告)."""
    numerals = {numeral for numeral, owner in _numbered_defendants(texts) if owner is not None and same(owner, party)}
    if not numerals and zh_title_role([party], heading) == "被告":
        listed = parties(_title_sides(heading)[1], "zh")  # type: ignore[index]
        place = next((k for k, p in enumerate(listed) if same(p, party)), None)
        if len(listed) > 1 and place is not None and place < len(_ZH_NUMERALS):
            numerals = {_ZH_NUMERALS[place]}
    return frozenset(role for n in numerals for role in (f"被告{n}", f"第{n}被告"))


# What follows a header entry's role: a colon ("原告：卫x5"), or the name and its particulars ("被告人樊某，男，"),
# not a finding that opens with a role ("原告祁x5分得银行存款60,000元").
_HEADER_ENTRY = re.compile(r"[（(]?[^。；]{0,8}?[：:]|[^，,。；]{1,14}[，,]\s*(?:男|女|住|出生|汉族|[0-9一二]{4}年)")


def _header_entries(text: str) -> list[re.Match[str]]:
    """The roles that open a Chinese header's entries ("被告人柏x4，男，", "原告：卫x5"), in text order."""
    return [e for e in _ENTRY.finditer(text) if _HEADER_ENTRY.match(text, e.end())]


def zh_entry(text: str, party: Party) -> tuple[int, int] | None:
    """Where a Chinese header's entry of a party runs ("被告人柏x4，男，……取保候审。辩护人陈某……"): from its
    role to the next party's entry, its agents' entries included; None when the text opens no entry for it."""
    entries = _header_entries(text)
    for k, entry in enumerate(entries):
        owner = _named_after(text, entry.end())
        if owner is not None and names_any([owner], [party]):
            end = entries[k + 1].start() if k + 1 < len(entries) else len(text)
            return entry.start(), end
    return None


def zh_entry_agents(text: str, party: Party) -> list[Party]:
    """The agents a Chinese header's entry of a party names (辩护人龙x6, 委托诉讼代理人：易某)."""
    span = zh_entry(text, party)
    if span is None:
        return []
    found = []
    for agent in re.finditer(rf"(?:{_AGENTS})[：:]?", text[span[0] : span[1]]):
        named = _named_after(text, span[0] + agent.end())
        if named is not None and not same(named, party):
            found.append(named)
    return found


def zh_entry_owner(sentence: str, passage: str) -> Party | None:
    """The party whose Chinese header entry holds an agent's sentence ("辩护人潘x3,……由……法律援助中心指派。"
    after "被告人龚x5,女,……"): the agent acts for that party, so the sentence is about it too; None for any
    other sentence."""
    at = passage.find(sentence)
    if at < 0 or not re.match(rf"\s*(?:{_AGENTS})", sentence):
        return None
    before = [e for e in _header_entries(passage) if e.start() <= at]
    return _named_after(passage, before[-1].end()) if before else None


# A Chinese judgment gathers parties it has named under a count ("故二公司对熊某的上述债务承担连带清偿责任",
# "三被告人"): the sentence is about each of them. "第二被告" is an ordinal, not a count.
_ZH_COLLECTIVE = re.compile(r"(?<!第)(?:上述)?[二两三四五]家?(公司|被上诉人|上诉人|被告人|被告|原告)|上述(公司|被告人|被告|原告)")


def gathered(sentence: str, passage: str) -> list[Party]:
    """The parties of `passage` a Chinese sentence gathers under a count: its companies for 二公司, the
    parties named after 被告 for 二被告 (被告人 for 三被告人)."""
    out: list[Party] = []
    for found in _ZH_COLLECTIVE.finditer(sentence):
        kind = found.group(1) or found.group(2)
        if kind == "公司":
            named = [frozenset({c.group(0)}) for c in _ZH_COMPANY.finditer(passage)]
        else:
            # 被告 not followed by 人 when the count is of 被告; 上诉人 not preceded by 被.
            role = re.compile(rf"(?<!被){kind}(?!人)" if kind in ("被告", "上诉人") else kind)
            named = [p for r in role.finditer(passage) for p in _listed_after(passage, r.end())]
        for p in named:
            if p not in out:
                out.append(p)
    return out


def _listed_after(text: str, end: int) -> list[Party]:
    """The parties a role introduces: the one named right after it and those listed on with 、
    ("被告人邱0、韦x5共谋后")."""
    first = _named_after(text, end)
    if first is None:
        return []
    out = [first]
    spans = m.zh_name_spans(text[end : end + 60])
    # The list runs on while only 、 stands between one name and the next.
    for (_, last_end, _), (start, _, name) in zip(spans, spans[1:], strict=False):
        if text[end + last_end : end + start] != "、":
            break
        out.append(name)
    return out


# A judgment's header lists each party by its role, then the party's agent or representative
# ("被上诉人（原审原告）：段x7，……。委托诉讼代理人：莫0，……"; "被告人邱0，……。辩护人龚某，……"): the agent
# belongs to the entry before it.
# 委托代理人, 出庭负责人: the agent and the officer appearing for a body in an administrative judgment's header
# (原告：段某……委托代理人：范x8; 被告：某某分局……出庭负责人：滕x6).
_AGENTS = "委托诉讼代理人|委托代理人|诉讼代理人|代理律师|代理人|辩护人|法定代表人|出庭负责人"
_ENTRY = re.compile(rf"(?:^|(?<=[。；;]))\s*({_HEADER_ROLES})(?:[（(][^）)]{{1,12}}[）)])?")
# The role may carry the short name the judgment gives a company ("被告网络公司的委托诉讼代理人").
_ASKS_AGENT = re.compile(
    rf"({_HEADER_ROLES})[一二三四五]?(?:[（(][^）)]*[）)])?(?:[\u4e00-\u9fff]{{0,6}}?公司)?的?(?:{_AGENTS})"
)
# A question asking for a named party's agent ("祝某的诉讼代理人是谁").
_ASKS_NAMED_AGENT = re.compile(rf"的(?:{_AGENTS})")
_AGENT_ENTRY = re.compile(rf"^\s*(?:{_AGENTS})")


def _entry_before(text: str, at: int) -> str | None:
    """The role of the header entry a Chinese text opens last before position `at` (a sentence opening
    with it), or None."""
    roles_found = [e.group(1) for e in _ENTRY.finditer(text, 0, max(at, 0))]
    return roles_found[-1] if roles_found else None


def _named_asks_agent(question: str) -> list[Party]:
    """The parties a Chinese question names when it asks for one's agent ("祝某的诉讼代理人"), else []."""
    return parties(question, "zh") if _ASKS_NAMED_AGENT.search(question) else []


def asks_agent(question: str) -> bool:
    """Whether a Chinese question asks who a party's agent is (被上诉人的委托诉讼代理人是谁, 祝某的诉讼代理人)."""
    return bool(_ASKS_AGENT.search(question)) or bool(_named_asks_agent(question))


# An attendance sentence lists who came, parties and agents ("原告屠某及其委托诉讼代理人、被告翁x1的委托诉讼代理人、
# 被告邝x3到庭参加诉讼"): a name in it is an agent's only where an agent word stands right before it ("被告的委托
# 诉讼代理人王某到庭").
_ATTENDANCE = re.compile(r"到庭|(?:出庭|到场)(?:参加诉讼|应诉)")
_AGENT_BEFORE = re.compile(rf"(?:{_AGENTS})[：:]?\s*$")


def only_attendance(answer: str) -> bool:
    """Whether every sentence of a Chinese reply that names someone is an attendance sentence naming no
    agent: what it names are the parties whose agents came, or who came themselves."""
    seen = False
    for sentence in re.split(r"(?<=[。；;])", answer):
        if not parties(sentence, "zh"):
            continue
        spans = m.zh_name_spans(sentence)
        if not _ATTENDANCE.search(sentence) or any(
            _AGENT_BEFORE.search(sentence[max(0, start - 10) : start]) for start, _, _ in spans
        ):
            return False
        seen = True
    return seen


def agent_of_another_party(question: str, sentence: str, text: str) -> bool:
    """Whether a header sentence of `text` naming an agent ("委托诉讼代理人：莫0，……") sits under another
    party's entry than the one whose agent the Chinese question asks for: another role (上诉人的委托诉讼代理人),
    or another party than the one it names (祝某的诉讼代理人, the entry "原告：谭x1")."""
    if not _AGENT_ENTRY.match(sentence):
        return False
    at = text.find(sentence.strip()[:12])
    entries = list(_ENTRY.finditer(text, 0, max(at, 0))) if at >= 0 else []
    if not entries:
        return False
    asked = _ASKS_AGENT.search(question)
    if asked is not None:
        return entries[-1].group(1) != asked.group(1)
    named = _named_asks_agent(question)
    owner = _named_after(text, entries[-1].end())
    return bool(named) and owner is not None and not names_any([owner], named)


_AGENT_OF = re.compile(rf"({_HEADER_ROLES})([一二三四五]?)(?:[（(][^）)]*[）)])?(?:公司)?的?(?:{_AGENTS})")


def agent_of_another_role(question: str, claim: str) -> bool:
    """Whether a Chinese claim names the agent of another role than the one whose agent the question asks
    for ("被告一的委托诉讼代理人晁1、巩某" to 被告二的委托诉讼代理人是谁): another role, or another number of the
    same one."""
    asked, said = _AGENT_OF.search(question), _AGENT_OF.search(claim)
    if asked is None or said is None:
        return False
    if asked.group(1) != said.group(1):
        return True
    return bool(asked.group(2) and said.group(2)) and asked.group(2) != said.group(2)


def agent_of_asked_party(question: str, sentences: list[str], text: str) -> bool:
    """Whether one of a header's `sentences` (of `text`) names an agent under the entry of the role whose
    agent the Chinese question asks for."""
    asked = _ASKS_AGENT.search(question)
    if asked is None:
        return False
    # The same office (a 委托诉讼代理人 for one, not the company's 法定代表人).
    office = re.search(rf"(?:{_AGENTS})$", asked.group(0))
    for sentence in sentences:
        at = text.find(sentence.strip()[:12])
        entry = _AGENT_ENTRY.match(sentence)
        if entry and office and entry.group(0).strip() == office.group(0).strip() and at >= 0 and (
            _entry_before(text, at) == asked.group(1)
        ):
            return True
    return False


def first_role(text: str, lang: str) -> str | None:
    """The first role a Chinese text names (原告, 被告人; not 本案 or 该案)."""
    if lang != "zh":
        return None
    return next((r.group(0) for r in _ZH_ROLES.finditer(text) if r.group(0) not in ("本案", "该案")), None)


# What may stand between a role and the name it introduces: a gloss of the role in the court below and
# the colon of a judgment's header ("上诉人（原审被告）：", "原告:").
_ROLE_GLOSS = re.compile(r"(?:[（(][^）)]{1,12}[）)])?\s*[：:]?\s*")


def without_cases(text: str) -> str:
    """The text without the cases it names (a case number, a title in 《》, an English "In Chan v Wong,"
    frame): what a standalone question asks, not which judgment it is about."""
    return _EN_FRAME.sub(" ", _TITLE.sub(" ", text))


# An English case number ("HCA 1288/2022", "DCCC 688/2023").
_EN_CASE_NUMBER = re.compile(r"\b[A-Z]{2,6}\s+\d{1,5}/\d{4}\b")


def without_titles(text: str) -> str:
    """An English text without the case titles and numbers it names anywhere ("acquitted in HKSAR v Lok
    Wing-hei and Tsoi Ka-ming"): what it asks of the case, not which case."""
    text = without_cases(text)
    return text if language.has_cjk(text) else _EN_CASE.sub(" ", _EN_CASE_NUMBER.sub(" ", text))


# A place opening a company's name: two or three characters none of which is a particle or a verb that
# may stand before a company (向, 给, 支付 of "支付给某公司").
_ZH_PLACE_BEFORE_COMPANY = re.compile(
    r"(?:(?![向与和对及在由将被的了是从等其该系给付支至于为])[\u4e00-\u9fff]){2,3}[省市县区]?(?=某[\u4e00-\u9fff]{0,12}?公司)"
)


def without_parties(text: str, lang: str) -> str:
    """The text with its party names, role words and document titles (or an English question's frame
    "In Chan v Wong,") blanked out."""
    text = without_cases(text)
    if lang == "zh":
        chars = list(text)
        for start, end, _ in m.zh_name_spans(text):
            chars[start:end] = [" "] * (end - start)
        text = _ZH_ROLES.sub(" ", "".join(chars))
        # A company's place is part of its name (the 武汉 of 武汉某劳务有限公司), no topic of its own.
        text = _ZH_PLACE_BEFORE_COMPANY.sub(" ", text)
        return _ZH_COMPANY.sub(" ", text)
    for run in _EN_RUN.findall(text):
        if parties(run, "en"):
            text = text.replace(run, " ")
    return _EN_ROLES.sub(" ", text)


def topic_words(text: str, lang: str) -> set[str]:
    """What a text is about, names and roles aside (content words)."""
    return set(_topic_words(text, lang))


@lru_cache(maxsize=1 << 14)
def _topic_words(text: str, lang: str) -> frozenset[str]:
    return frozenset(m.content_words(without_parties(text, lang), lang))


def on_topic(clause: str, question: str, lang: str) -> bool:
    """Whether a clause speaks of what the question asks about (names and roles aside): a topic word of
    the question in it; in Chinese a whole word of two characters or more (月利率, not the 利率 of
    年利率), as a reader looks for the thing asked."""
    if lang == "zh":
        terms = _zh_terms(question)
        # A name holding a topic's character is no topic word (the 钱 of 钱1 for "借了多少钱").
        bare = without_parties(clause, "zh")
        return not terms or any(t in bare for t in terms)
    topic = _topic_words(question, lang)
    return not topic or bool(topic & m.haystack(clause, lang))


@lru_cache(maxsize=1 << 14)
def _zh_terms(question: str) -> tuple[str, ...]:
    text = without_parties(question, "zh")
    words = m.words(text, "zh")
    terms = [w for w in words if len(w) >= 2 and language.has_cjk(w) and w not in language.STOPWORDS["zh"]]
    # Two single characters the segmenter split but the question writes together (尚欠 of "尚欠多少货款")
    # are one term: what is owed is as much the topic as what it is owed for.
    stop = language.STOPWORDS["zh"]
    terms += [
        a + b
        for a, b in zip(words, words[1:], strict=False)
        if len(a) == len(b) == 1 and language.has_cjk(a + b) and not {a, b} & stop and a + b in text
    ]
    if not terms:
        # A question of single characters ("向原告借了多少钱") still asks about something: its own.
        terms = [w for w in words if len(w) == 1 and language.has_cjk(w) and w not in stop]
    return tuple(terms)


def parties(text: str, lang: str) -> list[Party]:
    """The parties a text names, in text order, each as a set of lower-cased name units."""
    return list(_parties(text, lang))


@lru_cache(maxsize=1 << 16)
def _parties(text: str, lang: str) -> tuple[Party, ...]:
    if lang == "zh":
        # A case number's court code is no anonymised name ("(2021)苏01民终6732号" names no 苏01).
        text = _CASE_NUMBER.sub(" ", text)
        found = list(m.names(text, "zh"))
        found += [frozenset({c.group(0)}) for c in _ZH_COMPANY.finditer(text)]
        found += [frozenset({b.group(0)}) for b in _ZH_PUBLIC_BODY.finditer(text)]
        return tuple(found)
    out = []
    for run in _EN_RUN.findall(text):
        # A possessive names its owner ("Ip Kee Engineering Limited's appeal").
        words = [re.sub(r"['’]s$", "", w) for w in run.split()]
        while words and (
            words[0].lower().strip("'’") in _NOT_NAME or words[0].lower() in m.STOPWORDS or words[0].lower() in _TITLES
        ):
            words = words[1:]
        if len(words) < 2:
            continue
        if any(_GIVEN.match(w) for w in words) or words[-1].lower() in _COMPANY:
            # Every word counts, short ones too: "So Kin-fai" is not "To Kin-fai".
            out.append(frozenset(re.findall(r"[a-z]+", " ".join(words).lower())))
    return tuple(out)


_EN_TITLED = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Mdm|Madam|Dr)\.?\s+([A-Z][a-z]+)\b(?![\s-]+[A-Z])")


def called_by_surname(text: str, party: Party, others: list[Party]) -> bool:
    """Whether an English text calls the party by title and one word of its name ("Mr Ho" for Ho Ka-lun, as
    a judgment does after its first mention), where none of `others` (the rest its passage names) holds
    that word."""
    return any(
        word.lower() in party and not any(word.lower() in o for o in others if not same(o, party))
        for word in _EN_TITLED.findall(text)
    )


def same(a: Party, b: Party) -> bool:
    return a == b


def names_any(named: list[Party], asked: list[Party]) -> bool:
    """Whether one of `named` is one of the `asked` parties."""
    return any(same(n, a) for n in named for a in asked)
