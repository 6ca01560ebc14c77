"""Build the near-miss questions (issue 45 item 5): ``queries.jsonl`` here and in
``../near_miss_heldout``. Run from anywhere: ``python build.py`` (the shared LoCoMo folder is
looked for beside the checkout, as the suite looks for it; ``--shared-dir`` to point elsewhere).

Each question names a real person of a conversation of the suite (a speaker of a LoCoMo
conversation, of zh_groupchat or of changed_facts) and asks for an attribute of them that the
conversation never states. The questions are written as templates with, for each, the words
any statement of the attribute would use (its *tell-tale terms*: a favourite film needs
"movie" or "film"; a blood type "blood"); a template is asked of a person only when none of its
terms occurs anywhere in that conversation (``absent`` below, the check the test
``benchmarks/tests/test_near_miss.py`` repeats on the written file). The held-out part is the
questions on the conversations in ``HELD_OUT``: other people, other chats.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from remem_bench.chat_sources import to_jsonl

HERE = Path(__file__).resolve().parent
DATA = HERE.parent
REPO = DATA.parents[1]

# (question, tell-tale terms): "{s}" is the person. English terms match as words (a trailing
# "*" matches any ending); Chinese ones anywhere in a line.
TEMPLATES_EN: list[tuple[str, tuple[str, ...]]] = [
    ("What is {s}'s favourite movie?", ("movie*", "film*", "cinema")),
    ("What is {s}'s phone number?", ("phone*", "number", "call me")),
    ("What is {s}'s blood type?", ("blood",)),
    ("How much does {s} earn a year?", ("salary", "earn*", "income", "paid", "wage*", "raise")),
    ("What is {s}'s shoe size?", ("shoe*", "size")),
    ("What is {s}'s home address?", ("address", "street", "avenue", "apartment number")),
    ("What is {s}'s middle name?", ("middle name", "named after", "full name")),
    ("How tall is {s}?", ("tall", "height", "feet", "cm", "inches")),
    ("What is {s}'s zodiac sign?", ("zodiac", "horoscope", "star sign")),
    ("Which bank does {s} use?", ("bank*",)),
    ("What is the name of {s}'s dentist?", ("dentist*",)),
    ("What is {s}'s email address?", ("email*", "e-mail", "mail", "@")),
    ("Which football team does {s} support?", ("football", "soccer", "premier league")),
    ("What was {s}'s first car?", ("first car", "car", "cars")),
    ("What is the wifi password at {s}'s place?", ("wifi", "wi-fi", "password*")),
    ("How much rent does {s} pay?", ("rent*",)),
    ("What is {s}'s favourite colour?", ("colour*", "color*", "favorite colo*", "favourite colo*")),
    (
        "Which instrument does {s} play?",
        (
            "instrument*",
            "guitar*",
            "piano*",
            "violin*",
            "drum*",
            "ukulele*",
            "flute*",
            "cello*",
            "sax*",
        ),
    ),
    (
        "What language did {s} study in school?",
        ("language*", "spanish", "french", "german", "mandarin", "latin", "japanese"),
    ),
    (
        "What is {s}'s favourite board game?",
        ("board game*", "chess", "monopoly", "scrabble", "catan"),
    ),
]
TEMPLATES_ZH: list[tuple[str, tuple[str, ...]]] = [
    ("{s}最喜欢的电影是哪部？", ("电影", "影院", "片子", "影片")),
    ("{s}的血型是什么？", ("血型",)),
    ("{s}的生日是几月几号？", ("生日", "出生")),
    ("{s}的手机号是多少？", ("手机号", "电话", "号码")),
    ("{s}的月薪是多少？", ("月薪", "工资", "薪", "收入", "年终奖")),
    ("{s}穿多大码的鞋？", ("鞋", "码")),
    ("{s}的星座是什么？", ("星座",)),
    ("{s}有多高？", ("身高", "多高", "米八", "cm", "公分")),
    ("{s}养了什么宠物？", ("宠物", "猫", "狗", "仓鼠", "鹦鹉", "兔")),
    ("{s}会弹什么乐器？", ("乐器", "吉他", "钢琴", "小提琴", "古筝", "鼓", "尤克里里")),
    ("{s}是哪所大学毕业的？", ("大学", "毕业", "学院", "母校")),
    ("{s}最喜欢什么颜色？", ("颜色", "色")),
    ("{s}的老家在哪个省？", ("老家", "省", "家乡", "祖籍")),
    ("{s}的微信号是什么？", ("微信号", "wx", "vx")),
    ("{s}家的wifi密码是多少？", ("wifi", "密码", "无线")),
    ("{s}每个月房租多少钱？", ("房租", "租金", "月租")),
    ("{s}开的是什么牌子的车？", ("车", "驾照")),
    ("{s}最爱吃的菜是什么？", ("最爱吃", "最喜欢吃", "爱吃")),
    ("{s}支持哪支足球队？", ("足球", "球队", "球迷")),
    ("{s}的邮箱地址是什么？", ("邮箱", "email", "邮件", "@")),
]

# host dataset -> its folder, relative to the shared bench folder or to benchmarks/data
HOSTS = {
    "locomo": "shared:locomo",
    "zh_groupchat": "zh_groupchat",
    "changed_facts": "changed_facts",
}
HELD_OUT = frozenset(
    {
        "conv-48",
        "conv-49",
        "conv-50",
        "devteam",
        "friends",
        "assistant",
        "tom",
        "zoe",
        "sunyue",
        "zhengkai",
    }
)
# chats added to a host after these sets were written (changed_facts' described employers):
# a template's turn follows a chat's place in its host (``start``), so asking them would
# rewrite the questions of every later chat, the held-out part's too
NOT_ASKED = frozenset(("changed_facts", c) for c in ("maxiao", "nadia", "theo", "xuqing"))
PER_PERSON = {"locomo": 3, "zh_groupchat": 2, "changed_facts": 2}
MIN_LINES = {"locomo": 50, "zh_groupchat": 20, "changed_facts": 4}
# speaker labels that are roles or bots, not a person one would ask about by that name
NOT_PEOPLE = frozenset({"群助手", "小智", "Mum", "Dad", "妈妈", "爸爸", "大姑"})
# role words some chats put before a name ("群友小鹿", "室友大刘"): the question names the person
ROLE_PREFIXES = (
    "群友",
    "组织者",
    "物业",
    "前端",
    "后端",
    "产品",
    "闺蜜",
    "室友",
    "新人",
    "书友",
    "邻居",
)
_HAN = re.compile(r"[\u3400-\u9fff]")

# Near misses written one by one about a thing the chat talks about (``present``: a term the
# conversation must use) and an attribute of it the chat never gives (``absent``): the
# drone is there, its brand is not. (host, conversation, question, present, absent)
HAND_WRITTEN: list[tuple[str, str, str, tuple[str, ...], tuple[str, ...]]] = [
    (
        "locomo",
        "conv-26",
        "How much did Melanie pay for her pottery class?",
        ("pottery",),
        ("$", "dollar*", "paid", "cost*", "price", "fee", "bucks"),
    ),
    (
        "locomo",
        "conv-26",
        "What brand of guitar does Caroline play?",
        ("guitar",),
        ("brand*", "fender", "gibson", "yamaha", "taylor", "martin"),
    ),
    (
        "locomo",
        "conv-30",
        "What is the name of the landlord of Jon's dance studio?",
        ("studio",),
        ("landlord*", "lease*", "rent*"),
    ),
    (
        "locomo",
        "conv-30",
        "How much rent does Gina pay for her store?",
        ("store",),
        ("rent*", "lease*"),
    ),
    (
        "locomo",
        "conv-41",
        "What breed is John's dog?",
        ("dog",),
        (
            "breed*",
            "labrador",
            "lab",
            "retriever",
            "poodle",
            "terrier",
            "shepherd",
            "beagle",
            "husky",
            "corgi",
            "pug",
            "mutt",
        ),
    ),
    (
        "locomo",
        "conv-41",
        "Who is the director of the shelter where Maria volunteers?",
        ("shelter",),
        ("director*",),
    ),
    (
        "locomo",
        "conv-42",
        "How much prize money did Nate win at the tournament?",
        ("tournament",),
        ("$", "prize money", "dollar*", "bucks"),
    ),
    (
        "locomo",
        "conv-42",
        "What brand of laptop does Joanna use?",
        ("laptop",),
        ("brand*", "dell", "macbook", "lenovo", "hp", "asus", "acer", "apple"),
    ),
    (
        "locomo",
        "conv-43",
        "What brand is Tim's violin?",
        ("violin",),
        ("re:violin.{0,40}brand|brand.{0,40}violin", "stradivari*", "yamaha"),
    ),
    (
        "locomo",
        "conv-44",
        "How much did Audrey pay for her tattoo?",
        ("tattoo",),
        ("$", "cost*", "dollar*", "re:paid.{0,40}tattoo|tattoo.{0,40}paid", "price", "bucks"),
    ),
    (
        "locomo",
        "conv-44",
        "What brand of bike does Andrew ride?",
        ("bike",),
        ("brand*", "trek", "specialized", "giant", "cannondale"),
    ),
    (
        "locomo",
        "conv-47",
        "What model is James's laptop?",
        ("laptop",),
        ("model*", "dell", "macbook", "lenovo", "hp", "asus", "acer", "alienware", "razer"),
    ),
    ("locomo", "conv-48", "What is the favourite toy of Deborah's cat?", ("cat",), ("toy*",)),
    (
        "locomo",
        "conv-49",
        "How much did Evan sell his painting for?",
        ("painting",),
        (
            "$",
            "dollar*",
            r"re:(?:sold|sell\w*).{0,40}painting|painting.{0,40}(?:sold|sell)",
            "price",
            "bucks",
        ),
    ),
    (
        "locomo",
        "conv-50",
        "What brand of camera does Dave use?",
        ("camera",),
        (
            "re:camera.{0,40}brand|brand.{0,40}camera",
            "canon",
            "nikon",
            "sony",
            "fuji*",
            "leica",
            "gopro",
        ),
    ),
    (
        "locomo",
        "conv-50",
        "How much did Calvin's concert tickets cost?",
        ("concert",),
        ("$", "re:ticket.{0,40}(?:cost|price)", "dollar*", "bucks"),
    ),
    (
        "zh_groupchat",
        "hike",
        "赵磊的无人机一块电池能飞多久？",
        ("无人机",),
        ("续航", "re:无人机.{0,20}电池|电池.{0,20}无人机", "re:飞.{0,6}分钟"),
    ),
    (
        "zh_groupchat",
        "hike",
        "陈思远推荐的登山杖是什么牌子？",
        ("登山杖",),
        ("re:登山杖.{0,20}牌子|牌子.{0,20}登山杖", "品牌", "黑钻", "Black Diamond", "LEKI"),
    ),
    ("zh_groupchat", "hike", "发云界的民宿叫什么名字？", ("民宿",), ("民宿叫", "名字", "客栈")),
    (
        "zh_groupchat",
        "family",
        "张晓东在曼彻斯特读的是哪所大学？",
        ("曼彻斯特",),
        ("re:曼彻斯特.{0,10}大学", "university", "学院"),
    ),
    (
        "zh_groupchat",
        "family",
        "张晓东的毕业论文得了多少分？",
        ("论文",),
        ("re:论文.{0,20}(?:分|成绩)|(?:分|成绩).{0,20}论文", "distinction", "merit", "GPA"),
    ),
    (
        "zh_groupchat",
        "family",
        "张晓雨在滨江租的房子月租多少？",
        ("滨江",),
        ("房租", "月租", "re:滨江.{0,30}[0-9]+"),
    ),
    (
        "zh_groupchat",
        "devteam",
        "团建住的双月湾民宿叫什么名字？",
        ("民宿",),
        ("民宿叫", "民宿名", "客栈"),
    ),
    (
        "zh_groupchat",
        "devteam",
        "周杰的无人机是什么型号？",
        ("无人机",),
        ("型号", "牌子", "大疆", "DJI", "Mavic", "Mini"),
    ),
    (
        "zh_groupchat",
        "friends",
        "许静怡的婚纱是在哪家店买的？",
        ("婚纱",),
        ("婚纱店", "re:婚纱.{0,20}(?:买|租|店)"),
    ),
    (
        "zh_groupchat",
        "friends",
        "苏晴家的橘猫几岁了？",
        ("橘猫",),
        ("re:猫.{0,8}岁", "re:年糕.{0,8}岁", "re:岁.{0,4}(?:猫|年糕)"),
    ),
    (
        "zh_groupchat",
        "assistant",
        "朵朵的小提琴是在哪里买的？",
        ("小提琴",),
        ("re:小提琴.{0,20}买|买.{0,20}小提琴",),
    ),
    (
        "zh_groupchat",
        "assistant",
        "林子轩在番禺的新房子月租多少？",
        ("番禺",),
        ("房租", "月租", "re:租.{0,10}[0-9]+ ?[元块]"),
    ),
    (
        "zh_groupchat",
        "assistant",
        "林子轩订的鲸鱼蛋糕花了多少钱？",
        ("蛋糕",),
        ("re:蛋糕.{0,12}[0-9一二三四五六七八九十百]+ ?[元块]", "re:[0-9]+ ?[元块].{0,8}蛋糕"),
    ),
]


def strip_role(label: str) -> str:
    """A speaker label without the role word before the name: "群友小鹿" -> "小鹿"."""
    return next((label[len(p) :] for p in ROLE_PREFIXES if label.startswith(p)), label)


def host_dir(host: str, shared_dir: Path) -> Path:
    where = HOSTS[host]
    return shared_dir / where.split(":", 1)[1] if where.startswith("shared:") else DATA / where


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _term_pattern(term: str) -> re.Pattern[str]:
    if term.startswith("re:"):  # a regular expression, for a term that needs its context
        return re.compile(term[3:], re.IGNORECASE)
    if _HAN.search(term) or not term[0].isalnum():
        return re.compile(re.escape(term), re.IGNORECASE)
    body = re.escape(term.rstrip("*")) + (r"\w*" if term.endswith("*") else r"s?")
    return re.compile(rf"(?<![\w-]){body}(?![\w-])", re.IGNORECASE)


def absent(terms: tuple[str, ...], lines: list[str]) -> bool:
    """True when no line of the conversation uses any of the terms."""
    patterns = [_term_pattern(t) for t in terms]
    return not any(p.search(line) for p in patterns for line in lines)


def is_chinese(text: str) -> bool:
    return bool(_HAN.search(text))


def people(turns: list[dict], host: str) -> list[str]:
    """The conversation's speakers that are people, most lines first."""
    counts = Counter(t["speaker"] for t in turns)
    return [
        s
        for s, n in counts.most_common()
        if n >= MIN_LINES[host] and s not in NOT_PEOPLE and len(s) <= 12
    ]


def _row(host: str, conv: str, query: str, turns: list[dict], terms: tuple[str, ...]) -> dict:
    return {
        "qid": "",  # numbered once the conversation's questions are all in
        "conversation": conv,
        "target": host,
        "query": query,
        "timestamp": max(t["timestamp"] for t in turns) + 86400,  # asked a day after the chat
        "gold": [],
        "gold_sessions": [],
        "category": "unanswerable",
        "answer": "",
        "lang": "zh" if is_chinese(query) else "en",
        "absent": list(terms),
    }


def conversation_lines(turns: list[dict]) -> list[str]:
    """What the check reads: every line and every speaker label of the conversation."""
    return [t["text"] for t in turns] + [t["speaker"] for t in turns]


def questions_for(host: str, conv: str, turns: list[dict], start: int) -> list[dict]:
    """The templated near misses of one conversation: for each person, the first
    ``PER_PERSON`` templates (going round from ``start``, so that people and chats get
    different ones) whose terms the conversation never uses, in the conversation's language."""
    lines = conversation_lines(turns)
    chinese = sum(map(is_chinese, lines[: len(turns)])) > len(turns) / 2
    templates = TEMPLATES_ZH if chinese else TEMPLATES_EN
    out: list[dict] = []
    at = start
    for person in people(turns, host):
        name = strip_role(person)
        taken = 0
        for step in range(len(templates)):
            text, terms = templates[(at + step) % len(templates)]
            if absent(terms, lines):
                out.append(_row(host, conv, text.format(s=name), turns, terms))
                taken += 1
                if taken == PER_PERSON[host]:
                    at += step + 1
                    break
    return out


def hand_written_for(host: str, conv: str, turns: list[dict]) -> list[dict]:
    """The hand-written near misses of one conversation; one that fails its check stops the
    build (the chat does mention the attribute, or not the thing)."""
    lines = conversation_lines(turns)
    out = []
    for h, c, query, present, terms in HAND_WRITTEN:
        if (h, c) != (host, conv):
            continue
        if absent(present, lines) or not absent(terms, lines):
            raise SystemExit(
                f"{conv}: {query!r} fails its check (present {present}, absent {terms})"
            )
        row = _row(host, conv, query, turns, terms)
        out.append({**row, "present": list(present)})
    return out


def build(shared_dir: Path) -> tuple[list[dict], list[dict]]:
    """(development questions, held-out questions)."""
    rows: list[dict] = []
    for n, host in enumerate(HOSTS):
        corpus = read_jsonl(host_dir(host, shared_dir) / "corpus.jsonl")
        existing = {q["query"] for q in read_jsonl(host_dir(host, shared_dir) / "queries.jsonl")}
        by_conv: dict[str, list[dict]] = {}
        for turn in corpus:
            if (host, turn["conversation"]) not in NOT_ASKED:
                by_conv.setdefault(turn["conversation"], []).append(turn)
        for c, (conv, turns) in enumerate(by_conv.items()):
            found = hand_written_for(host, conv, turns) + questions_for(
                host, conv, turns, start=3 * c + n
            )
            found = [q for q in found if q["query"] not in existing]
            for i, q in enumerate(found, 1):
                q["qid"] = f"nm:{host}:{conv}:{i}"
            rows += found
    dev = [q for q in rows if q["conversation"] not in HELD_OUT]
    held = [q for q in rows if q["conversation"] in HELD_OUT]
    return dev, held


def write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_jsonl(rows), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared-dir", default=str(REPO.parent / "shared" / "bench"))
    args = ap.parse_args()
    dev, held = build(Path(args.shared_dir))
    write(HERE / "queries.jsonl", dev)
    write(DATA / "near_miss_heldout" / "queries.jsonl", held)
    for name, rows in (("near_miss", dev), ("near_miss_heldout", held)):
        langs = Counter(r["lang"] for r in rows)
        print(f"{name}: {len(rows)} questions, {dict(langs)}")


if __name__ == "__main__":
    main()
