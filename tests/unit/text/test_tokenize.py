from remem.store.sqlite.lexical import fts_match_expression
from remem.text import Tokenizer, normalize_text, to_simplified


def test_english_is_stemmed_and_stopwords_dropped():
    tok = Tokenizer()
    assert tok.query_tokens("I moved to Berlin") == ["move", "berlin"]
    assert tok.index_tokens("moving") == tok.index_tokens("moves") == ["move"]


def test_chinese_run_is_never_one_token():
    tok = Tokenizer("bigram")
    tokens = tok.index_tokens("我搬到柏林")
    assert "我搬到柏林" not in tokens
    assert {"我搬", "搬到", "到柏", "柏林"} <= set(tokens)
    # documents carry unigrams so a one-character query can match
    assert "猫" in tok.index_tokens("我的猫很可爱")
    assert tok.query_tokens("猫") == ["猫"]
    # longer queries use bigrams only
    assert tok.query_tokens("柏林") == ["柏林"]


def test_words_mode_uses_segmentation():
    tok = Tokenizer("words")
    tokens = tok.query_tokens("我喜欢机器学习")
    assert "机器" in tokens or "机器学习" in tokens
    assert "我喜欢机器学习" not in tokens


def test_both_mode_adds_long_words_to_bigrams():
    tok = Tokenizer("both")
    tokens = tok.index_tokens("我明天去图书馆看书")
    assert "图书" in tokens and "书馆" in tokens  # bigrams
    assert "图书馆" in tokens  # a segmented word of 3 characters


def test_traditional_and_simplified_meet():
    tok = Tokenizer()
    assert tok.query_tokens("記憶體") == tok.query_tokens("记忆体")
    assert to_simplified("臺灣") == "台湾"
    assert set(tok.query_tokens("後來")) & set(tok.index_tokens("后来他搬家了"))


def test_japanese_and_korean_get_bigrams():
    tok = Tokenizer()
    ja = tok.index_tokens("東京に住んでいます")
    assert "东京" in ja and "住ん" in ja
    ko = tok.index_tokens("서울에 살아요")
    assert "서울" in ko and "살아" in ko
    assert set(tok.query_tokens("서울")) <= set(ko)


def test_mixed_script_and_fullwidth():
    tok = Tokenizer()
    tokens = tok.index_tokens("ＧＰＴ４模型很好用")
    assert "gpt4" in tokens
    assert "模型" in tokens
    assert normalize_text("ＡＢＣ") == "abc"


def test_fts_expression_quotes_every_token():
    expr = fts_match_expression(['a"b', "NEAR", "x"])
    assert expr == '"a""b" OR "NEAR" OR "x"'
    assert fts_match_expression([]) == ""


def test_only_letters_and_digits_survive():
    tok = Tokenizer()
    for token in tok.index_tokens("hello, world! (test) -- e-mail: a@b.c 你好！"):
        assert token.isalnum(), token


def test_a_chinese_question_searches_for_what_it_asks_about_not_how_it_asks():
    tok = Tokenizer("bigram")
    # 什么时候 is "when": its 时候 would match any "…的时候", 么时 / 候有 are the gap's bigrams
    assert tok.query_tokens("小明什么时候有空？") == ["小明", "有空"]
    assert tok.query_tokens("他叫什麼名字") == ["他叫", "名字"]  # Traditional as well
    # a content character left between question words stays, a grammatical one goes
    assert tok.query_tokens("小屋一晚多少钱？") == ["小屋", "屋一", "一晚", "钱"]
    assert tok.query_tokens("你住在哪里了") == ["你住", "住在"]
    assert tok.query_tokens("什么？") == []
    assert tok.query_tokens("几乎每天") == ["几乎", "乎每", "每天"]  # 几乎 is "almost"


def test_a_cantonese_question_leaves_out_how_it_asks_too():
    tok = Tokenizer("bigram")
    # 咩 / 咩嘢 "what", 边度 "where", 几时 "when", 点解 "why", 系咪 / 有冇 "is it / has it",
    # the particles 嘅 / 㗎 / 啦 and the lone 佢 "he" (Traditional as typed, simplified when read)
    assert tok.query_tokens("佢喺邊度返工㗎？") == ["佢喺", "返工"]
    assert tok.query_tokens("你鍾意食咩嘢？") == ["你钟", "钟意", "意食"]
    assert tok.query_tokens("阿明幾時得閒？") == ["阿明", "得闲"]
    assert tok.query_tokens("你點解唔去？") == ["唔去"]
    assert tok.query_tokens("佢係咪住喺沙田？") == ["住喺", "喺沙", "沙田"]
    assert tok.query_tokens("你有冇養貓？") == ["养猫"]
    assert tok.query_tokens("佢嘅貓叫咩名？") == ["猫叫", "名"]
    # Mandarin words holding the same characters stay: 旁边 (beside), 点菜 (to order), 几乎
    assert tok.query_tokens("我坐喺旁边") == ["我坐", "坐喺", "喺旁", "旁边"]
    assert tok.query_tokens("点菜啦") == ["点菜"]
    assert tok.query_tokens("几乎每天") == ["几乎", "乎每", "每天"]
    # documents keep every word
    assert "边度" in tok.index_tokens("佢喺邊度返工")


def test_particles_and_the_copula_leave_a_chinese_query_where_they_stand_alone():
    tok = Tokenizer("bigram")
    # 的 and 是 as words of their own: "the", "is"; not the 婷的 / 的脚 / 脚是 across them
    assert tok.query_tokens("婷婷的脚是怎么受伤的？") == ["婷婷", "脚", "受伤"]
    # inside a word they stay: 目的 (purpose), 了解 (understand), 为了 (for)
    assert tok.query_tokens("我的目的是为了好玩") == ["目的", "为了", "了好", "好玩"]
    assert "了解" in tok.query_tokens("你了解他吗")


def test_a_phrase_taken_whole_keeps_its_particles_and_question_words():
    # a dictionary word ("food" -> 吃的) or a name is one unit: cut, 吃的 would look for 吃
    tok = Tokenizer("bigram")
    assert tok.query_tokens("吃的") == ["吃"]
    assert tok.phrase_tokens("吃的") == ["吃的"]
    assert tok.phrase_tokens("什么时候") == ["什么", "么时", "时候"]


def test_question_words_stay_in_documents_and_with_stop_words_kept():
    line = "登山的时候帮我提醒一下大家"
    assert "时候" in Tokenizer("bigram").index_tokens(line)  # what is stored is unchanged
    kept = Tokenizer("bigram", drop_stopwords=False)
    assert "时候" in kept.query_tokens("小明什么时候有空？")


def test_japanese_and_korean_questions_leave_their_question_words_out_too():
    tok = Tokenizer("bigram")
    asked = tok.query_tokens("東京タワーはいつ建てられましたか")
    assert "いつ" not in asked and "つ建" not in asked and {"东京", "建て"} <= set(asked)
    # an indefinite is no question word: いつも is "always"
    assert "いつ" in tok.query_tokens("私はいつも駅で待っています")
    assert "何か" in tok.query_tokens("何か食べたい")
    # a Korean word that starts with one goes whole (its particle with it)
    assert tok.query_tokens("언제 서울에 가요?") == ["서울", "울에", "가요"]
    assert tok.query_tokens("어디에서 만나요") == ["만나", "나요"]


def test_word_pairs_say_which_word_each_token_stands_for():
    tok = Tokenizer("bigram")
    assert tok.word_pairs("Why did Caroline's Café close?") == [
        ("caroline", "carolin"),
        ("café", "café"),
        ("close", "close"),
    ]
    assert tok.word_pairs("小明什么时候有空") == []  # Chinese tokens are their own words


def test_an_english_question_leaves_out_how_many_and_how_much():
    tok = Tokenizer("bigram")
    assert tok.query_tokens("How many days ago did I meet Emma?") == ["day", "ago", "meet", "emma"]
    assert tok.query_tokens("how much was the hut") == ["hut"]
    assert "much" in tok.query_tokens("that was so much fun")  # not asked with: a word
    assert "mani" in tok.index_tokens("How many days ago")  # documents keep it
    assert "mani" in Tokenizer("bigram", drop_stopwords=False).query_tokens("how many")


def test_a_text_asked_as_a_query_finds_itself_whatever_its_question_words():
    import random

    rng = random.Random(17)
    alphabet = (
        "什么时候哪里谁多少几乎吗呢啥的了是在有小明有空いつもどこ何か誰언제어디서울에aZ 0？!🎉"
        "咩边度几时点解系咪有冇佢嘅啦"
    )
    tok = Tokenizer("bigram")
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        assert set(tok.query_tokens(text)) <= set(tok.index_tokens(text)), text
