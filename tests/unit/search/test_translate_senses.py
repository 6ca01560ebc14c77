"""The dictionary translation translates content words only, and an everyday verb only into
its everyday senses (issue 46): in a store that holds every sense CC-CEDICT lists for a word,
asking that word alone adds no function word and no wrong sense."""

from __future__ import annotations

import pytest

from remem import Config, Memory
from remem.search.translate import QueryTranslator
from remem.text.bilingual import dictionary
from remem.text.tokenize import Tokenizer

NOW = 1_790_000_000.0

# English words a question asks with: translating them adds nothing of its topic
_ENGLISH_FUNCTION_TEXT = """
the a an and or but if of in on at to for with by from about into over under after before
between through during without again is are was were be been am has had does did will would
can could should may might must i you he she it we they me him her us them my your his its
our their this that these those what which who whom whose where when why how there here now
then still just also very too so not no yes all any some every each much many more most other
same such only ever never always often already yet soon quite rather almost really new old
first last next current currently recently today time thing way
"""
ENGLISH_FUNCTION = _ENGLISH_FUNCTION_TEXT.split()
# Common verbs whose dictionary senses are wrong in a question: translating them adds noise
_ENGLISH_VAGUE_TEXT = """
get go make have do take come see know want look give tell try keep let put mean seem show
hear say ask think turn bring become begin happen
"""
ENGLISH_VAGUE = _ENGLISH_VAGUE_TEXT.split()
# Everyday verbs: the senses that are right for a question about someone's life. Anything else
# is a wrong sense; e.g. live -> 热闹 (lively), 活 (alive), 实况 (live broadcast), 活泼 (lively)
# are wrong for "Where does X live"; live -> 住 is right.
ENGLISH_RIGHT = {
    "live": {"住", "居住", "住在", "住处", "生活"},
    "work": {"工作", "上班", "打工", "干活", "做事", "办公"},
    "like": {"喜欢", "喜爱", "爱好", "爱吃", "爱"},
    "move": {"搬", "搬家", "搬到", "搬迁", "乔迁"},
    "buy": {"买", "购买", "购", "买入", "选购", "添置"},
    "pay": {"付", "付款", "支付", "交", "掏钱", "付费"},
    "meet": {"见面", "会面", "碰面", "遇见", "遇到", "聚"},
    "play": {"玩", "打", "踢", "弹", "玩耍"},
    "run": {"跑", "跑步", "长跑", "奔跑"},
    "help": {"帮", "帮忙", "帮助", "援助"},
    "leave": {"离开", "离职", "辞职", "走了"},
    "call": {"打电话", "电话", "叫", "称呼"},
    "use": {"用", "使用", "利用"},
    "find": {"找到", "发现", "找"},
    "feel": {"感觉", "感到"},
    "quit": {"辞职", "退出", "戒", "戒掉", "不干"},
}
WRONG_EXAMPLES = {
    "live": {"热闹", "活", "实况", "活泼"},
    "work": {"作品", "运转"},
    "like": {"一样"},
}

# Chinese words a question asks with, and common verbs whose glosses are wrong in a question
_CHINESE_FUNCTION_TEXT = """
现在 还 在 的 了 是 有 去 来 说 看 想 要 会 能 就 都 也 很 最 多 我 你 他 她 我们 他们 这 那
这个 那个 什么 怎么 为什么 谁 哪 哪里 哪儿 几 多少 吗 呢 吧 啊 和 跟 与 或者 还是 但是 可是
因为 所以 如果 虽然 已经 曾经 正在 刚 刚才 一直 总是 常常 经常 又 再 才 只 比较 非常 特别
挺 太 更 真 好 对 给 把 被 让 从 到 向 往 之前 以前 以后 之后 然后 后来 今天 昨天 明天 目前
当时 时候 一下 一些 一点 有点 觉得 知道 认为 应该 需要 打算 准备 东西 事情 做 搞 弄 听 走
"""
CHINESE_FUNCTION = _CHINESE_FUNCTION_TEXT.split()
CHINESE_RIGHT = {
    "住": {"live", "stay", "reside"},
    "买": {"buy", "purchase"},
    "搬": {"move"},
    "工作": {"work", "job"},
    "喜欢": {"like", "love"},
    # the dictionary's 订 stops at "to order": booking was not among its senses
    "订": {"book", "reserve", "order"},
}
# English words no Chinese word is glossed into (a line holding "still" or "now" is any line)
ENGLISH_NOTHING = set(ENGLISH_FUNCTION) | set(ENGLISH_VAGUE)


def test_the_lists_are_long_enough():
    assert len(set(ENGLISH_FUNCTION) | set(ENGLISH_VAGUE) | set(ENGLISH_RIGHT)) >= 100
    assert len(set(CHINESE_FUNCTION) | set(CHINESE_RIGHT)) >= 100


@pytest.fixture(scope="module")
def every_sense(tmp_path_factory):
    """A store holding every sense the dictionary lists for the words above (and the right
    ones), in English lines and in Chinese lines, and its translator."""
    tokenizer = Tokenizer()
    bilingual = dictionary(
        tokenizer.word_tokens, key=(tokenizer.stem_english, tokenizer.drop_stopwords)
    )
    lines = []
    for word in [*ENGLISH_FUNCTION, *ENGLISH_VAGUE, *ENGLISH_RIGHT]:
        key = " ".join(t for t in tokenizer.word_tokens([word]) if t)
        senses = bilingual.chinese_for(key)[:24] if key else []
        senses += sorted(ENGLISH_RIGHT.get(word, ()))
        if senses:
            lines.append(" ".join(senses))
    for word in [*CHINESE_FUNCTION, *CHINESE_RIGHT]:
        glosses = [g.text for g in bilingual.glosses(word)]
        lines.append(", ".join(glosses + sorted(CHINESE_RIGHT.get(word, ()))) or word)
    path = tmp_path_factory.mktemp("senses") / "m.db"
    config = Config.load(env={}, overrides={"embed.provider": "none", "indexing.mode": "sync"})
    with Memory(path, config) as mem:
        mem.ingest_many(
            [
                {"id": f"m{i}", "session": "s", "speaker": "Ann", "text": text, "timestamp": NOW}
                for i, text in enumerate(lines)
            ]
        )
        yield QueryTranslator(mem.store, tokenizer)


@pytest.mark.parametrize("word", ENGLISH_FUNCTION + ENGLISH_VAGUE)
def test_an_english_function_word_or_vague_verb_is_not_translated(every_sense, word):
    assert every_sense.translate(f"{word}?").words == []


@pytest.mark.parametrize("word", sorted(ENGLISH_RIGHT))
def test_an_everyday_english_verb_gets_only_its_right_senses(every_sense, word):
    words = set(every_sense.translate(f"{word}?").words)
    assert words, f"{word}: no sense added at all"
    assert words <= ENGLISH_RIGHT[word], f"{word}: wrong senses {words - ENGLISH_RIGHT[word]}"
    assert not words & set(CHINESE_FUNCTION)
    assert not words & WRONG_EXAMPLES.get(word, set())


def test_live_is_translated_as_zhu_never_as_lively(every_sense):
    words = every_sense.translate("live?").words
    assert "住" in words
    assert not {"热闹", "活", "实况", "活泼", "生动"} & set(words)


@pytest.mark.parametrize("word", CHINESE_FUNCTION)
def test_a_chinese_function_word_or_vague_verb_is_not_glossed(every_sense, word):
    assert every_sense.translate(f"{word}？").words == []


@pytest.mark.parametrize("word", sorted(CHINESE_RIGHT))
def test_an_everyday_chinese_verb_gets_only_its_right_glosses(every_sense, word):
    words = set(every_sense.translate(f"{word}？").words)
    assert words, f"{word}: no gloss added at all"
    assert words <= CHINESE_RIGHT[word], f"{word}: wrong glosses {words - CHINESE_RIGHT[word]}"
    assert not words & ENGLISH_NOTHING


def test_a_content_word_is_never_translated_into_a_function_word(every_sense):
    # "quite" stems to "quit", whose dictionary words include 很 and 比较 ("quite");
    # 还 ("still") and 现在 ("current") are function words whatever they gloss
    for question in ("Did he quit?", "What is the current plan?", "Is it still open?"):
        assert not set(every_sense.translate(question).words) & set(CHINESE_FUNCTION)


LEXICAL = {"embed.provider": "none", "indexing.mode": "sync"}


def _chat(mem: Memory, lines: list[tuple[str, str, str]]) -> None:
    mem.ingest_many(
        [
            {"id": f"m{i}", "session": session, "speaker": who, "text": text, "timestamp": NOW + i}
            for i, (session, who, text) in enumerate(lines)
        ]
    )


def test_a_sense_that_agrees_with_nothing_else_of_the_question_is_dropped(tmp_path):
    # "hospital" is 医院 and 好客 ("hospitable"): both held, only 医院 said by the person asked of
    config = Config.load(env={}, overrides=LEXICAL)
    with Memory(tmp_path / "m.db", config) as mem:
        _chat(mem, [("a", "Tom", "我住院了，在瑞金医院"), ("b", "李娜", "他们家很好客")])
        translator = QueryTranslator(mem.store, Tokenizer())
        words = translator.translate("Which hospital is Tom in?", ["Tom"], speakers=["Tom"]).words
        assert words == ["医院"]


def test_another_words_translation_in_the_same_session_is_agreement(tmp_path):
    # the banquet hall is named in one turn, the wedding in another of the same session
    config = Config.load(env={}, overrides=LEXICAL)
    with Memory(tmp_path / "m.db", config) as mem:
        _chat(
            mem,
            [
                ("s1", "苏晴", "婚礼定在十月三号"),
                ("s1", "许静怡", "锦江宾馆宴会厅，三十桌"),
                ("s2", "王芳", "公司年会的宴会很无聊"),
            ],
        )
        words = QueryTranslator(mem.store, Tokenizer()).translate("Where is the wedding banquet?")
        assert "宴会" in words.words and "婚礼" in words.words


def test_translated_words_weigh_what_translate_weight_says(tmp_path):
    config = Config.load(env={}, overrides={**LEXICAL, "translate.vector": False})
    with Memory(tmp_path / "m.db", config) as mem:
        _chat(mem, [("a", "Tom", "我住院了，在瑞金医院"), ("a", "Ann", "hospital food is bad")])

        def score(weight: float) -> float:
            config.translate.weight = weight
            hits = mem.search("hospital?", k=2, now=NOW + 10, channels=("lexical",)).hits
            return next(h.explain.lexical_score for h in hits if h.record.id == "m0")

        full, half = score(1.0), score(0.5)
        assert half == pytest.approx(full / 2)
        config.translate.weight = 1.0


def test_a_proper_noun_keeps_its_name_when_its_only_companion_is_a_wrong_sense(tmp_path):
    # "Japan" is 日本 and "dates" 日子; no line holds both, so each disagreed with the other
    # and the question lost its one sure word (zh_groupchat: the Japan trip's date changes)
    config = Config.load(env={}, overrides=LEXICAL)
    with Memory(tmp_path / "m.db", config) as mem:
        _chat(mem, [("a", "苏晴", "日本改到明年春节吧"), ("b", "王芳", "婚礼定日子了吗")])
        words = QueryTranslator(mem.store, Tokenizer()).translate(
            "How many times did we change the dates of our Japan trip?"
        )
        assert "日本" in words.words


def test_a_proper_noun_at_the_start_of_a_question_is_still_checked(tmp_path):
    # only a capital inside the sentence marks a name: "Hospital" opening a question is the word
    config = Config.load(env={}, overrides=LEXICAL)
    with Memory(tmp_path / "m.db", config) as mem:
        _chat(mem, [("a", "Tom", "我住院了，在瑞金医院"), ("b", "李娜", "他们家很好客")])
        translator = QueryTranslator(mem.store, Tokenizer())
        words = translator.translate("Hospital Tom is in?", ["Tom"], speakers=["Tom"]).words
        assert words == ["医院"]


@pytest.mark.parametrize(
    ("question", "line", "gloss"),
    [
        ("东东哪天回的曼彻斯特？", "Flying back to Manchester on the 24th", "back"),
        (
            "马来西亚航空的试用从哪天开始？",
            "a Malaysian airline wants a trial starting May 3",
            "start",
        ),
    ],
)
def test_return_and_start_are_glossed_into_their_everyday_senses(tmp_path, question, line, gloss):
    # 回 ("go back") and 开始 ("start") were vague verbs with no gloss: a question asking when
    # someone went back or something started lost the English line saying so
    config = Config.load(env={}, overrides=LEXICAL)
    with Memory(tmp_path / "m.db", config) as mem:
        _chat(mem, [("a", "Dan", line), ("b", "李娜", "我们周末去爬山")])
        words = QueryTranslator(mem.store, Tokenizer()).translate(question).words
        assert gloss in words


def test_change_asks_for_gai_when_the_line_also_says_what_changed(tmp_path):
    # "change" was a vague verb: "did we change the dates of our Japan trip" lost 改 in
    # "日本改到明年春节吧"; now 改 when a line holding it also holds another word of the question
    config = Config.load(env={}, overrides=LEXICAL)
    with Memory(tmp_path / "m.db", config) as mem:
        _chat(mem, [("a", "苏晴", "日本改到明年春节吧"), ("b", "王芳", "找零钱")])
        words = (
            QueryTranslator(mem.store, Tokenizer())
            .translate("How many times did we change the dates of our Japan trip?")
            .words
        )
        assert "改" in words and "零钱" not in words
