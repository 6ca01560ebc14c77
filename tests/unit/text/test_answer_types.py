"""Answer types (issue 45): question classification, typed spans and answer-type evidence."""

from __future__ import annotations

import pytest

from remem.text.answer_types import ANSWER_TYPES, answer_evidence, asked_type, typed_spans
from remem.text.answer_types.spans import FINDERS

CLASSIFIED = [
    # English
    ("Where does Tom live now?", "place"),
    ("Where did Caroline move from?", "place"),
    ("Which city did Ann move to?", "place"),
    ("What country is Melanie's family from?", "place"),
    ("Which part of Leeds does Lucy live in?", "place"),
    ("What's Ann's home address?", "place"),
    ("Who is Ann's manager at Globex?", "person"),
    ("Who did Nate go to the concert with?", "person"),
    ("Whose idea was the road trip?", "person"),
    ("What is the name of Jon's boss?", "person"),
    ("Which company does Ann work for?", "organisation"),
    ("Where does Ann work now?", "organisation"),
    ("Which university did Omar study at?", "organisation"),
    ("What school does Liam's daughter go to?", "organisation"),
    ("When did Caroline go to the LGBTQ support group?", "time"),
    ("What time does the hike start?", "time"),
    ("What year did Jolene start yoga?", "time"),
    ("How long ago did Evan buy the car?", "time"),
    ("How long has Ann lived in Berlin?", "duration"),
    ("How long did the flight take?", "duration"),
    ("How many kids does Melanie have?", "number"),
    ("How often does Sam go running?", "number"),
    ("How old is Biscuit?", "number"),
    ("Which Postgres version does staging run?", "number"),
    ("How much did Lao Zhao's drone cost?", "amount"),
    ("How much does Priya pay in rent?", "amount"),
    ("What is Ann's salary at Globex?", "amount"),
    ("Why did Tom move to Shenzhen?", "reason"),
    ("What motivated Sam to change his diet?", "reason"),
    ("Is Tom coming on Saturday?", "yes_no"),
    ("Did Melanie finish the marathon?", "yes_no"),
    ("Would Caroline likely enjoy a jazz concert?", "yes_no"),
    ("What is Priya's favourite movie?", "film"),
    ("What film did John watch last weekend?", "film"),
    ("What is Ann's favourite food?", "food"),
    ("What kind of dog does Max have?", "pet"),
    ("What pet does Lucy have?", "pet"),
    ("What instrument does Evan play?", "instrument"),
    ("What sport does Nate love?", "sport"),
    ("What book is Jolene reading?", "book"),
    ("What colour is Lucy's new car?", "colour"),
    ("What game did Nate win the tournament in?", "game"),
    ("What language is Omar learning?", "language"),
    ("What does Liam's brother do for work?", "job"),
    ("What is Lin Wei's new phone number?", "contact"),
    ("What's the wifi password at Lin Wei's place?", "code"),
    ("What is the name of Kenji's hamster?", "name"),
    # Chinese, Simplified
    ("汤姆现在住在哪里？", "place"),
    ("大家去哪座山爬山了？", "place"),
    ("阿杰搬到哪个城市了？", "place"),
    ("谁负责订营地？", "person"),
    ("阿杰在北京的新公司叫什么？", "organisation"),
    ("何沐阳在宁波读的是哪所小学？", "organisation"),
    ("下次徒步是什么时候？", "time"),
    ("聚餐定在几号？", "time"),
    ("从市区开车过去要多久？", "duration"),
    ("这次一共去了几个人？", "number"),
    ("刘洋的半马最好成绩是多少？", "number"),
    ("老赵的无人机花了多少钱？", "amount"),
    ("营地一晚多少钱？", "amount"),
    ("为什么上周的活动取消了？", "reason"),
    ("小李明天来不来吗？", "yes_no"),
    ("阿杰是不是换工作了？", "yes_no"),
    ("张敏养了什么宠物？", "pet"),
    ("小鹿养的是什么狗？", "pet"),
    ("王芳最喜欢的电影是哪部？", "film"),
    ("郑凯以前打什么球？", "sport"),
    ("赵磊现在是什么职位？", "job"),
    ("林伟的手机号是多少？", "contact"),
    ("家里的wifi密码是什么？", "code"),
    ("苏晴最后买了哪款车？", "vehicle"),
    ("李明开的是什么牌子的车？", "vehicle"),
    ("What car does Ben drive now?", "vehicle"),
    ("Weber 先生的全名是什么？", "name"),
    # Chinese, Traditional
    ("湯姆現在住在哪裡？", "place"),
    ("他什麼時候回來？", "time"),
    ("這台相機花了多少錢？", "amount"),
    ("為什麼活動取消了？", "reason"),
    # Cantonese, as typed in Hong Kong (Traditional)
    ("佢做咩工？", "job"),
    ("佢喺邊度返工？", "organisation"),
    ("何家豪而家住喺邊？", "place"),
    ("阿明幾時得閒？", "time"),
    ("呢個幾多錢？", "amount"),
    ("你等咗幾耐？", "duration"),
    ("佢有幾多個仔？", "number"),
    ("你點解唔去？", "reason"),
    ("邊個同你去？", "person"),
    ("你隻貓叫咩名？", "name"),
    ("佢係咪住喺沙田？", "yes_no"),
    ("你有冇養貓？", "yes_no"),
    ("我通常叫咩？", None),  # 叫 also orders food: no name asked for
    ("你去咗邊？", "place"),
    ("他去边境了吗？", "yes_no"),  # Mandarin's 边境 (border): no Cantonese "where"
    # Japanese and Korean
    ("どこに住んでいますか？", "place"),
    ("いつ来ましたか？", "time"),
    ("これはいくらですか？", "amount"),
    ("누구랑 갔어요?", "person"),
    ("언제 왔어요?", "time"),
    # unknown: no answer type to check
    ("What did Caroline and Melanie talk about?", None),
    ("聊聊最近的事", None),
    ("", None),
]


@pytest.mark.parametrize(("question", "kind"), CLASSIFIED)
def test_asked_type(question: str, kind: str | None) -> None:
    assert asked_type(question) == kind


def test_every_answer_type_but_yes_no_has_a_finder() -> None:
    assert set(ANSWER_TYPES) - set(FINDERS) == {"yes_no"}
    assert {kind for _, kind in CLASSIFIED if kind} <= set(ANSWER_TYPES)


SPANS = [
    ("place", "We moved to Shanghai last spring", "Shanghai"),
    ("place", "周末去了香山，人超多", "香山"),
    ("place", "我住在浦东新区", "浦东新区"),
    ("place", "Our flat is on 12 Baker Street", "Baker Street"),
    ("place", "东京的樱花真好看", "东京"),
    ("person", "I went with my sister Anna", "Anna"),
    ("person", "昨天跟阿杰去吃饭了", "阿杰"),
    ("person", "I went with my mom", "mom"),
    ("organisation", "She just joined Globex Inc last month", "Globex Inc"),
    ("organisation", "我在华为公司上班", "华为公司"),
    ("organisation", "He works at Google now", "Google"),
    ("organisation", "我在北京大学读书", "北京大学"),
    ("time", "Let's meet next Tuesday at 5pm", "next Tuesday"),
    ("time", "Let's meet next Tuesday at 5pm", "5pm"),
    ("time", "We got married on October 13, 2023", "October 13, 2023"),
    ("time", "下周二晚上见", "下周二"),
    ("time", "我们 2023年8月3日 出发", "2023年8月3日"),
    ("duration", "I've lived here for three years", "three years"),
    ("duration", "开车过去大概两个小时", "两个小时"),
    ("duration", "we waited 45 minutes", "45 minutes"),
    ("number", "We have 3 kids", "3"),
    ("number", "一共来了十二个人", "十二个"),
    ("amount", "The drone was $1,200", "$1,200"),
    ("amount", "花了三百块", "三百块"),
    ("amount", "it was like 50 bucks", "50 bucks"),
    ("amount", "门票 ¥80 一张", "¥80"),
    ("amount", "一晚 120 元", "120 元"),
    ("amount", "a ticket is 20 euros", "20 euros"),
    ("reason", "I moved because the rent was too high", "because"),
    ("reason", "因为下雨，活动取消了", "因为"),
    ("contact", "my new number is 138-1234-5678", "138-1234-5678"),
    ("contact", "mail me at lin.wei@example.com", "lin.wei@example.com"),
    ("code", "the wifi password is sunflower2024", "sunflower2024"),
    ("code", "staging is on 10.0.3.17", "10.0.3.17"),
    ("name", "We named the puppy Max", "Max"),
    ("name", "我家猫叫豆豆", "豆豆"),
    ("film", "We watched 《流浪地球》 last night", "流浪地球"),
    ("film", 'Finally saw "Past Lives", loved it', "Past Lives"),
    ("food", "we ordered pizza again", "pizza"),
    ("food", "晚上吃火锅吧", "火锅"),
    ("pet", "I adopted a kitten last week", "kitten"),
    ("pet", "我养了一只柯基", "柯基"),
    ("instrument", "I've been learning the violin", "violin"),
    ("sport", "周末去打羽毛球", "羽毛球"),
    ("book", "I'm reading “The Hobbit” again", "The Hobbit"),
    ("music", "I'm really into jazz lately", "jazz"),
    ("colour", "I painted the door blue", "blue"),
    ("game", "We played chess all night", "chess"),
    ("language", "She speaks Spanish at home", "spanish"),
    ("job", "I'm a nurse at the children's hospital", "nurse"),
    ("job", "他现在是产品经理", "产品经理"),
    ("vehicle", "I finally got a Tesla Model 3", "tesla"),
    ("vehicle", "新车提了，比亚迪海豹", "比亚迪"),
    ("number", "来了十二个人，走了两万步", "两万步"),
    ("job", "我而家喺醫管局做物理治療師", "治疗师"),
    ("job", "Still doing sound engineering at the studio", "engineering"),
    ("pet", "Biscuit needs his fancy food, he's a spoiled beagle", "beagle"),
    ("organisation", "I'm at the Cork office three days a week now", "Cork office"),
    ("organisation", "double shifts in the pharmacy all weekend", "pharmacy"),
    ("organisation", "我在图书馆上班", "图书馆"),
    ("place", "奶奶现在住在湘雅医院骨科", "湘雅医院骨科"),
]


@pytest.mark.parametrize(("kind", "text", "span"), SPANS)
def test_typed_spans_find(kind: str, text: str, span: str) -> None:
    assert span in typed_spans(text, kind)


NOT_SPANS = [
    ("place", "Thanks so much, that means a lot"),
    ("amount", "I had a great time at the party"),
    ("amount", "我们下周再聊"),
    ("contact", "I'll call you tomorrow"),
    ("film", "I spent the weekend planting tomatoes in the garden"),
    ("time", "The garden looks lovely"),
    ("duration", "我昨天去了超市"),
    ("number", "我们一起去吧，一定要来"),
    ("organisation", "好的，没问题"),
    ("yes_no", "Yes, of course"),
    ("not-a-type", "anything"),
]


@pytest.mark.parametrize(("kind", "text"), NOT_SPANS)
def test_typed_spans_none(kind: str, text: str) -> None:
    assert typed_spans(text, kind) == []


def test_priya_favourite_movie_against_her_other_lines_is_low() -> None:
    question = "What is Priya's favourite movie?"
    lines = [
        "Priya: I spent the whole weekend repotting my plants",
        "Priya: work has been crazy, three deadlines this week",
        "Priya: my sister is visiting from Pune next month",
    ]
    assert answer_evidence(question, lines) == 0.0
    assert answer_evidence(question, ["Priya: my all-time favourite is “Amélie”"]) == 1.0


def test_lin_wei_phone_number_against_a_line_with_one_is_high() -> None:
    question = "What is Lin Wei's new phone number?"
    assert (
        answer_evidence(question, ["Lin Wei: new number is 139 0011 2233, old one is gone"]) == 1.0
    )
    assert answer_evidence(question, ["Lin Wei: I finally got a new phone!"]) == 0.0


def test_wifi_password_against_lines_without_one_is_low() -> None:
    question = "What's the wifi password at Lin Wei's place?"
    assert answer_evidence(question, ["Lin Wei: come over at 7, the wifi is slow though"]) == 0.0
    assert answer_evidence(question, ["Lin Wei: wifi password is linwei8888"]) == 1.0


def test_pet_question_against_an_allergy_line_is_weaker_than_a_pet() -> None:
    question = "张敏养了什么宠物？"
    allergy = answer_evidence(question, ["张敏：我对猫毛过敏，一碰就打喷嚏"])
    owned = answer_evidence(question, ["张敏：我家养了一只英短，叫团子"])
    assert allergy is not None and owned is not None
    assert allergy < owned == 1.0


def test_chinese_answerable_questions_find_their_answers() -> None:
    assert answer_evidence("汤姆现在住在哪里？", ["汤姆：我上个月搬到杭州了"]) == 1.0
    assert answer_evidence("大家去哪座山爬山了？", ["周六香山见，早上八点东门"]) == 1.0
    assert answer_evidence("老赵的无人机花了多少钱？", ["老赵：新买了台无人机，拍风景超稳"]) == 0.0


def test_neighbours_count_less_than_the_hit() -> None:
    question = "Where did Tom move?"
    assert (
        answer_evidence(question, ["Tom: guess what, I moved!", "Tom: Hangzhou, near the lake"])
        == 0.7
    )
    assert answer_evidence(question, ["Tom: I moved to Hangzhou"]) == 1.0


def test_a_speaker_label_is_only_a_weak_answer_to_who() -> None:
    question = "谁负责订营地？"
    assert answer_evidence(question, ["陈思远: 我订好了"]) == 0.5
    assert answer_evidence(question, ["陈思远: 营地是王小明订的"]) == 1.0


def test_a_span_the_question_names_is_no_answer() -> None:
    assert answer_evidence("Where in Shanghai does Tom live?", ["Tom loves Shanghai"]) == 0.0


def test_unknown_and_yes_no_questions_have_no_evidence() -> None:
    assert answer_evidence("What did they talk about?", ["anything at all"]) is None
    assert answer_evidence("Is Tom coming?", ["Tom: yes, see you at 7"]) is None
    # a reason is mostly said without "because": no span, no evidence either way
    assert answer_evidence("佩珊为什么没去武功山？", ["佩珊：脚崴了，去不了"]) is None
    assert answer_evidence("Where does Tom live?", []) == 0.0
