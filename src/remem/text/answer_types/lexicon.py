"""The word lists answer types are recognised by: the "named thing of a kind" kinds (film,
food, pet ...) with the English and Chinese words that name one, the suffixes of places and
organisations, and the gazetteer of countries and cities (``remem/data/gazetteer.tsv``: Unicode
CLDR's names, see its header).

The kind lists are hand-written for remem (CC0): common, everyday members of each kind, the
ones people mention in chats, not an encyclopaedia. A kind's *class words* ("movie", "电影")
say a question asks for that kind; its *members* ("pizza", "火锅") are answers of it.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files


def words(text: str) -> frozenset[str]:
    """The words of a space-separated list."""
    return frozenset(w for w in text.split() if w)


# kind -> (class words a question names the kind by, members that answer it), lower case;
# English multi-word members are joined by "_" and matched with a space
KINDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "film": (
        words("movie movies film films 电影 影片 片子 动画片 纪录片 电视剧 剧 show series"),
        words(
            "documentary cartoon anime sitcom 纪录片 动画片 美剧 韩剧 日剧 "
            "comedy thriller horror romcom 喜剧片 恐怖片 科幻片 爱情片 动作片"
        ),
    ),
    "food": (
        words(
            "food foods dish dishes meal snack snacks cuisine dessert 菜 食物 小吃 美食 菜系 甜点 零食 饭"
        ),
        words(
            "pizza pasta spaghetti sushi ramen noodles burger burgers tacos taco curry salad steak "
            "pancakes waffles sandwich sandwiches dumplings soup bbq barbecue chocolate cake "
            "cookies cookie ice_cream pie bread rice fries chicken fish seafood lasagna "
            "burrito pho kimchi tofu cheesecake brownies donuts croissant smoothie "
            "火锅 饺子 包子 面条 拉面 米饭 炒饭 烧烤 寿司 披萨 汉堡 牛排 沙拉 蛋糕 冰淇淋 "
            "麻辣烫 小龙虾 烤鸭 串串 螺蛳粉 米粉 粥 馄饨 煎饼 豆腐 红烧肉 酸菜鱼 烤肉 "
            "月饼 粽子 汤圆 奶茶 咖喱 炸鸡 饭团 甜品 巧克力 水饺 凉皮 肉夹馍"
        ),
    ),
    "pet": (
        words("pet pets animal animals 宠物 动物"),
        words(
            "dog dogs puppy puppies cat cats kitten kittens hamster hamsters parrot rabbit "
            "bunny turtle tortoise snake goldfish fish guinea_pig bird birds lizard gecko "
            "ferret horse pony 狗 小狗 狗狗 猫 小猫 猫咪 仓鼠 鹦鹉 兔子 乌龟 蛇 金鱼 鱼 "
            "柯基 金毛 泰迪 柴犬 哈士奇 布偶 英短 橘猫 鸟 蜥蜴 "
            # breeds, said in place of the animal ("he's a spoiled beagle")
            "beagle labrador lab retriever golden_retriever poodle terrier shepherd husky corgi "
            "pug dachshund bulldog chihuahua collie border_collie spaniel schnauzer shiba "
            "greyhound dalmatian tabby siamese persian ragdoll maine_coon "
            "比格 拉布拉多 贵宾 边牧 萨摩耶 法斗 斗牛犬 美短 暹罗 狸花 加菲 蓝猫"
        ),
    ),
    "instrument": (
        words("instrument instruments 乐器"),
        words(
            "guitar piano violin drums drum ukulele flute cello saxophone sax bass trumpet "
            "clarinet harp keyboard harmonica banjo 吉他 钢琴 小提琴 鼓 架子鼓 尤克里里 "
            "长笛 大提琴 萨克斯 古筝 二胡 琵琶 笛子 口琴 贝斯 电子琴"
        ),
    ),
    "sport": (
        words("sport sports 运动 体育 球类"),
        words(
            "football soccer basketball baseball tennis volleyball badminton golf hockey "
            "swimming running jogging cycling yoga pilates boxing climbing hiking skiing "
            "surfing skating marathon rugby cricket table_tennis ping_pong martial_arts karate "
            "篮球 足球 排球 网球 羽毛球 乒乓球 高尔夫 游泳 跑步 骑行 瑜伽 拳击 攀岩 "
            "爬山 徒步 滑雪 冲浪 滑板 马拉松 健身 太极 飞盘 橄榄球 棒球"
        ),
    ),
    "book": (
        words("book books novel novels 书 小说 书籍"),
        words("novel memoir biography 小说 传记 漫画"),
    ),
    "music": (
        words("song songs music band bands singer album genre 歌 歌曲 音乐 乐队 歌手 专辑"),
        words(
            "jazz rock pop classical hip-hop rap country blues metal folk edm k-pop "
            "摇滚 流行 爵士 古典 民谣 说唱 嘻哈 电音"
        ),
    ),
    "colour": (
        words("colour color colours colors 颜色 色"),
        words(
            "red blue green yellow orange purple pink black white grey gray brown beige "
            "navy teal turquoise gold silver 红色 蓝色 绿色 黄色 橙色 紫色 粉色 黑色 白色 "
            "灰色 棕色 金色 银色 米色 红 蓝 绿 黄 紫 粉"
        ),
    ),
    "game": (
        words("game games 游戏"),
        words(
            "chess poker minecraft zelda fortnite tetris mahjong monopoly scrabble sudoku "
            "pokemon 象棋 围棋 麻将 扑克 王者荣耀 原神 斗地主 狼人杀 桌游 剧本杀"
        ),
    ),
    "language": (
        words("language languages 语言 外语"),
        words(
            "english chinese mandarin cantonese spanish french german japanese korean italian "
            "portuguese russian arabic hindi dutch swedish 英语 英文 中文 汉语 普通话 粤语 "
            "西班牙语 法语 德语 日语 韩语 意大利语 葡萄牙语 俄语 阿拉伯语"
        ),
    ),
    "vehicle": (
        words("car cars vehicle suv ev motorbike motorcycle 车 汽车 新车 电车 电动车 摩托车 轿车"),
        words(
            "tesla bmw audi mercedes toyota honda nissan mazda volkswagen vw ford chevrolet "
            "subaru volvo hyundai kia porsche prius civic corolla camry jeep mini "
            "特斯拉 宝马 奥迪 奔驰 丰田 本田 日产 马自达 大众 福特 别克 沃尔沃 现代 起亚 "
            "保时捷 比亚迪 理想 蔚来 小鹏 极氪 问界 吉利 长城 五菱 宏光 思域 卡罗拉 凯美瑞"
        ),
    ),
    "job": (
        words("job jobs profession occupation career 工作 职业"),
        words(
            "engineer teacher nurse doctor designer developer programmer manager lawyer "
            "accountant artist writer chef cook photographer counselor counsellor therapist "
            "scientist researcher professor student intern consultant analyst architect "
            "pilot driver dentist pharmacist musician singer dancer barista waiter "
            "salesperson entrepreneur founder ceo freelancer journalist editor "
            "engineering nursing teaching accounting marketing sales pharmacy physio "
            "physiotherapist librarian baker vet veterinarian firefighter officer mechanic "
            "electrician plumber carpenter tutor coach trainer director supervisor assistant "
            "receptionist cashier clerk model actor actress producer streamer youtuber "
            "influencer blogger lead head_of "
            "工程师 老师 教师 护士 医生 设计师 程序员 经理 律师 会计 厨师 摄影师 作家 "
            "记者 编辑 销售 司机 教授 学生 实习生 顾问 分析师 建筑师 飞行员 咨询师 "
            "产品经理 运营 测试 前端 后端 创业 自由职业 主管 总监 主任 治疗师 药剂师 "
            "销售员 服务员 公务员 保姆 快递员 外卖员 店长 老板"
        ),
    ),
}

# Words that say a kind's member is had, done or liked, not only mentioned: "我对猫毛过敏" names a
# cat but is no answer to "what pet does she have"; "我养了一只猫" is. A member with one of its
# kind's cues in the same text is a strong span, without one a weak one (kinds not listed:
# always strong)
KIND_CUES: dict[str, str] = {
    "pet": r"养|领养|收养|我家|家的|家里|的(?:猫|狗)|一只|一条|只猫|只狗|名叫|叫|\b(?:my|our|his|her|their|adopted|adopt|have an?|has an?|had an?|got an?|named|called|walk(?:ed|ing)?|feed|fed)\b",
    "food": r"吃|做了|煮|点了|爱|喜欢|最爱|\b(?:eat|ate|eating|cook|cooked|cooking|made|make|bake|baked|love|loves|favou?rite|order|ordered|tried|craving)\b",
    "instrument": r"弹|拉|吹|打|学|练|\b(?:play|plays|played|playing|learn|learning|learned|practi[cs]e|lessons?)\b",
    "sport": r"打|踢|玩|练|去|参加|喜欢|爱|\b(?:play|plays|played|playing|go|went|do|does|did|love|loves|enjoy|enjoys|joined|team|practice)\b",
    "game": r"玩|打|下|\b(?:play|plays|played|playing|game)\b",
}

PLACE_SUFFIXES_ZH = words(
    "市 省 县 区 镇 乡 村 路 街 巷 山 湖 江 河 海 岛 湾 港 峰 谷 公园 广场 机场 车站 站 寺 "
    "景区 古镇 海滩 大道 小区 花园 商场 酒店 民宿 营地 森林 草原 度假村 国 州 医院 "
    "馆 楼 栋 单元 号楼 广场"
)
PLACE_SUFFIXES_EN = words(
    "Street St Avenue Ave Road Rd Boulevard Lane Drive Park Lake Mountain Mountains Mount "
    "Beach Island Islands River Valley Bay Hill Hills Canyon Falls Square Station Airport "
    "City County Village Town Harbor Harbour Coast Trail Forest Museum Mall Hotel"
)
ORG_SUFFIXES_ZH = words(
    "公司 集团 大学 学院 医院 银行 中学 小学 幼儿园 研究所 研究院 工作室 事务所 科技 "
    "有限公司 工厂 厂 协会 基金会 俱乐部 学校 诊所 部门 政府 法院 报社 出版社 餐厅 书店 "
    "馆 局 店 中心 团队 组 部"
)
ORG_SUFFIXES_EN = words(
    "Inc Ltd LLC Corp Corporation Company Co Group University College Institute Hospital "
    "Clinic Bank School Academy Studio Studios Labs Lab Foundation Agency Association "
    "Society Center Centre Club Bakery Cafe Café Restaurant Shelter Church Team Office "
    "Branch Headquarters HQ Department Pharmacy Library Gym Firm Partners Studio"
)
# a workplace named by what it is, not its name ("double shifts in the pharmacy", "我在图书馆上班"):
# a weak answer to "where does she work"
WORKPLACE_WORDS = words(
    "hospital pharmacy school bank library studio office clinic restaurant cafe factory "
    "university college startup agency firm store shop bakery lab warehouse gym salon hotel "
    "shelter church newspaper magazine company "
    "医院 药房 学校 银行 图书馆 工作室 办公室 诊所 餐厅 咖啡店 工厂 大学 公司 门店 实验室 "
    "仓库 健身房 酒店 单位 外企 国企 央企 创业公司"
)
# Chinese job titles end so: "物理治疗师", "销售员", "美术主管"
JOB_SUFFIXES_ZH = (
    "师",
    "员",
    "经理",
    "主管",
    "总监",
    "主任",
    "医生",
    "护士",
    "教授",
    "老师",
    "顾问",
)
# well-known employers named without a suffix (hand-written)
ORG_NAMES = words(
    "Google Apple Microsoft Amazon Meta Facebook Netflix Tesla IBM Intel Nvidia Samsung Sony "
    "Starbucks Walmart Target Uber Airbnb Spotify Twitter OpenAI Oracle Adobe Salesforce "
    "华为 腾讯 阿里 阿里巴巴 字节 字节跳动 百度 京东 美团 小米 网易 拼多多 滴滴 快手 比亚迪 "
    "联想 大疆 蚂蚁"
)
# people named by their relation, an answer to "who": "my sister", "她妈妈"
RELATION_WORDS = words(
    "mom mum mother dad father parents sister brother sibling wife husband partner "
    "girlfriend boyfriend son daughter kids children friend friends cousin aunt uncle "
    "grandma grandmother grandpa grandfather boss coworker colleague colleagues neighbor "
    "neighbour roommate teacher mentor classmate family "
    "妈妈 妈 爸爸 爸 父母 姐姐 妹妹 哥哥 弟弟 老婆 老公 妻子 丈夫 男朋友 女朋友 对象 儿子 "
    "女儿 孩子 朋友 同事 同学 室友 老板 领导 邻居 表哥 表姐 表妹 表弟 奶奶 爷爷 外婆 "
    "外公 姥姥 阿姨 叔叔 舅舅 家人 师傅"
)


@lru_cache(maxsize=1)
def gazetteer() -> tuple[frozenset[str], frozenset[str]]:
    """(English place names, Chinese place names) from ``remem/data/gazetteer.tsv``; the
    English ones as written (they are matched with their capitals), the Chinese ones in
    Simplified and Traditional script."""
    text = (files("remem") / "data" / "gazetteer.tsv").read_text(encoding="utf-8")
    english: set[str] = set()
    chinese: set[str] = set()
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        _kind, en, *zh = line.split("\t")
        english.add(en)
        chinese.update(name for name in zh if len(name) >= 2)
    return frozenset(english), frozenset(chinese)
