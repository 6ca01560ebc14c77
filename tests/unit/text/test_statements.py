"""Questions, hypotheticals and quotes are not statements: English, Simplified and Traditional
Chinese, Japanese and Korean, each with the look-alikes that are statements."""

from __future__ import annotations

import pytest

from remem.text.assertion import not_a_statement
from remem.text.statements import is_hypothetical, is_question, is_quote

QUESTIONS = [
    # English: a mark, a wh-word with inversion, an inverted auxiliary, "any tips" ...
    "Any tips for where I live now?",
    "Any tips for where I live now",
    "Where do I live now?",
    "Where do I live now",
    "where do i live",
    "What's my favourite fruit",
    "What is my name",
    "Which city do I live in",
    "What kind of tea do I like",
    "What time is it",
    "How many cats do I have",
    "How about Lisbon",
    "Who is my manager",
    "Why can't I remember my password",
    "When did I move to Berlin",
    "Do I live in Lisbon",
    "Does my sister live in Porto",
    "Is there a good bakery near me",
    "Are you sure I like tea",
    "Should I move to Lisbon",
    "Can you tell me where I work",
    "Could we meet on Friday",
    "Would you recommend a dentist",
    "Did I tell you about my dog",
    "I live in Lisbon?",
    "I moved to Lisbon last month, any tips?",
    "Tell me where I live",
    "Remind me what my sister's name is",
    "I wonder where I left my keys",
    "Anything fun to do around here",
    "What can I say to my boss?",
    "Where do I live now? 🙂",
    # Simplified Chinese
    "我住在哪里？",
    "我住在哪里",
    "我住哪儿",
    "我喜欢什么水果",
    "我的老板是谁",
    "我今年几岁",
    "你有几个孩子",
    "我养了几只猫？",
    "我应该怎么办",
    "为什么我总是忘记",
    "我住在上海吗",
    "你是北京人吧？",
    "你是北京人对吧",
    "我是不是应该搬家",
    "附近有没有好吃的",
    "你去不去",
    "你喜不喜欢猫",
    "我住哪里呢",
    "你呢",
    "那北京呢",
    "你知道我住哪里",
    "这个多少钱",
    "你在干嘛",
    "是么",
    "我住在上海?",
    # Traditional Chinese
    "我住在哪裡？",
    "我住在哪裡",
    "我喜歡什麼水果",
    "你是北京人嗎",
    "為什麼我總是忘記",
    # Japanese
    "私はどこに住んでいますか",
    "私はどこに住んでいますか？",
    "お名前は何ですか",
    "どこに住んでるの",
    "どこに住んでたっけ",
    "明日は雨かな",
    # Korean
    "어디 살아요?",
    "어디 사세요",
    "뭐 먹었니",
    "내일 갈까요",
    "어디에 삽니까",
]

STATEMENTS = [
    "I moved to Lisbon last month.",
    "Where I live now is Lisbon.",
    "What I like most is green tea.",
    "When I was a kid I lived in Paris.",
    "What happened is that I moved to Lisbon.",
    "I live in Lisbon, and I love it!",
    "Do remember that I'm vegan.",
    "Guess what - I got a puppy two weeks ago!",
    "What can I say, I love turtles.",
    "Could you remember that I'm vegan?",  # a request to keep a memory, not a question
    "Can you please note that my flight is at 9",
    "I prefer the 'dark' theme",
    "My favourite fruit is mango",
    "The meeting is in room B2.",
    "我不知道他住哪里",
    "我不知道他住哪里。",
    "我不记得我把钥匙放哪儿了",
    "什么都可以",
    "我什么都吃",
    "谁都知道我喜欢猫",
    "哪里都行",
    "没什么",
    "这不是什么大事",
    "我喜欢猫狗什么的",
    "我不怎么喝酒",
    "我多少会一点日语",
    "我有几个朋友在上海",
    "我住在上海",
    "我搬到北京了。",
    "我还在上班呢",
    "这就是为什么我搬到了里斯本",
    "我偏好靠窗的座位",
    "我不得不搬家",
    "我住在臺北",
    "我喜歡喝綠茶。",
    "不管去不去，我都住在上海",
    "私は東京に住んでいます",
    "私はコーヒーが好きです",
    "私はいつもコーヒーを飲みます",
    "猫とか犬とかが好きです",
    "この部屋は静か",
    "저는 서울에 살아요",
    "우리 어머니",
    "제 취향은 커피예요",
]


@pytest.mark.parametrize("text", QUESTIONS)
def test_questions(text):
    assert is_question(text), text
    assert not_a_statement(text) == "a question"


@pytest.mark.parametrize("text", STATEMENTS)
def test_statements_are_not_questions(text):
    assert not is_question(text), text


@pytest.mark.parametrize(
    "text",
    [
        "If I moved to Berlin, I'd need a visa",
        "Suppose I lived in Paris",
        "What if I lived in Rome",
        "Imagine I had a dog",
        "I wish I lived by the sea",
        "I would move to Lisbon if I could",
        "Let's say I work at Google",
        "如果我住在上海，我会每天喝咖啡",
        "假如我搬到北京",
        "要是我在腾讯工作就好了",
        "我搬到北京的话，会很忙",
        "假設我住在臺北",  # Traditional
        "もし東京に住んでいたら",
        "만약 서울에 산다면",
    ],
)
def test_hypotheticals(text):
    assert is_hypothetical(text), text
    assert not_a_statement(text) in ("a hypothetical", "a question")


@pytest.mark.parametrize(
    "text",
    [
        "I moved to Lisbon last month.",
        "I'd rather have tea if possible",
        "I live in Lisbon",
        "我住在上海",
        "他说的话我记住了",
        "私は東京に住んでいます",
    ],
)
def test_not_hypothetical(text):
    assert not is_hypothetical(text), text


@pytest.mark.parametrize(
    "text",
    [
        "My mum says I should live in Lisbon",
        "He said he lives in Paris",
        "Anna told me I'm moving to Berlin",
        "Apparently I live in Lisbon now",
        "I heard there's a nice trail just north of where I live.",
        'It might be a simple "I love you, Mom" on the card',
        'She wrote "I live in Paris" on the form',
        "他说他住在北京",
        "我妈妈觉得我应该搬家",
        "听说我要搬去上海",
        "他說他住在北京",  # Traditional
        "「我住在巴黎」と書いてあった",
        "田中さんは東京に住んでいると言っていた",
    ],
)
def test_quotes(text):
    assert is_quote(text), text


@pytest.mark.parametrize(
    "text",
    [
        "I prefer the 'dark' theme",
        "I live in Lisbon",
        "As I said, I live in Lisbon",
        'I just finished episode 12 of the "My Favorite Murder" podcast',
        "I've heard great things about them, and I like that they ship fast",
        'I loved "Daring Greatly: How the Courage to Be Vulnerable Transforms the Way We Live"',
        "I told Anna I moved to Berlin",
        "我跟他说我搬到北京了",
        "我住在上海",
        'My favourite book is "Dune"',
    ],
)
def test_not_quotes(text):
    assert not is_quote(text), text


def test_statements_pass_every_check():
    for text in ["I moved to Lisbon last month.", "我搬到北京了。", "私は東京に住んでいます"]:
        assert not_a_statement(text) is None
