"""Questions that gather facts from several occasions (they get the aggregate spread)."""

import pytest

from remem.text.intent import is_aggregate, speaks_of_self


@pytest.mark.parametrize(
    "query",
    [
        "How many concerts did I go to this year?",
        "What is the total I spent on bike repairs?",
        "How much more did I raise than my goal?",
        "Which trip did I take first, the one to Europe or the one to Thailand?",
        "What is the order of the museums I visited, from earliest to latest?",
        "Who became a parent first, Rachel or Alex?",
        "How often does Melanie go to the beach?",
        "我一共去了几次长城？",
        "两次旅行分别花了多少钱",
        "这三本书我读完的先后顺序是什么？",
        "上个月我们总共聚了多少次？",
        "比较一下我去年和今年的跑步成绩",
        "帮我比较去年和今年的电费",
        "我正式考了几次雅思？每次总分多少？",
        "我們一共去了幾次長城？",  # Traditional
        "How many days ago did I visit each of the three museums?",  # "each of" still counts
        "How many days did it take me to finish the two books?",
    ],
)
def test_aggregate_questions(query):
    assert is_aggregate(query)


@pytest.mark.parametrize(
    "query",
    [
        "Where does Alice work now?",
        "How much is the hut per night?",
        "What did Bob say about the glacier?",
        "小屋一晚多少钱？",
        "小明什么时候有空？",
        "Where did Alice work first?",
        "你还记得我上次说的出差吗？",
        "How many months ago did I attend the photography workshop?",  # when, not how often
        "How many days ago did I buy a smoker?",
        "我几天前买的那本书叫什么？",
        "三个月前我们去的那家店在哪？",
        "几天之前我买的书叫什么？",
        "三個月前我們去的那家店在哪？",  # Traditional
        # 几 after a demonstrative, 前, 后, 好 or 头: "those / the last / several", not "how many"
        "那几天宝宝是不是还有别的安排？",
        "前几天我跟你说的那家餐厅叫什么？",
        "這幾天天氣怎麼樣？",
        "我好几天没见到他了，他去哪了？",
        # 比较 as an adverb ("better", "rather"), not "compare"
        "我明天去哪儿找谁看比较合适？",
        "床上的東西要挑哪種比較好？",
        "他工作比较特殊，你记得他是做什么的吗",
        # 每次 alone is a habit, one answer
        "我每次落機點樣先恢復得快？",
        "她每次都做那个我最爱吃的，你帮我查查做法",
    ],
)
def test_single_fact_questions(query):
    assert not is_aggregate(query)


@pytest.mark.parametrize(
    "query",
    [
        "How many fitness classes do I attend in a typical week?",
        "What did I name my cat?",
        "I'm not sure which cocktail to make, any idea what I liked?",
        "我上次说的那家店叫什么？",
        "我的车是什么牌子？",
        "How long have my parents been staying with me in the US?",
        "what did i say about the trip",  # typed in lower case
    ],
)
def test_questions_about_the_asker(query):
    assert speaks_of_self(query)


@pytest.mark.parametrize(
    "query",
    [
        "What did you suggest for my trip?",  # put to the assistant
        "Can you remind me what I said?",
        "你还记得我说的出差吗？",
        "我们下次去哪？",  # "we" may take in the assistant
        "What did Caroline research?",
        "Where does Alice work now?",
        "Is this mine or yours?",
        "I was looking back at our previous chat: what did I ask about?",
        "Did I tell us the plan?",
        "When did World War I end?",
        "Where is the coal mine Caroline visited?",
        "What is i.e. short for?",
        "What did the assistant recommend for my trip?",
        "can u remind me of the plan",
        "我国的首都是哪里？",
    ],
)
def test_questions_not_only_about_the_asker(query):
    assert not speaks_of_self(query)
