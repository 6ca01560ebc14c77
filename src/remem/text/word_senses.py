"""Which words the dictionary translation may translate, and into what (issue 46).

CC-CEDICT lists senses by Chinese headword, not by how often an English word means them: read
backwards, "live" is 住 but also 热闹 ("lively"), 实况 ("live broadcast") and 活; "quite" stems
to "quit" and finds 很 and 比较. So, before the store decides which senses it holds:

- **function words** of either language are never translated, nor translated into: a
  question's "now", "still", "where" and its 现在, 还, 在 carry no topic, and a translation that
  is one (现在 for "current", "still" for 还) would match half the store;
- **common verbs and adjectives** whose dictionary senses are mostly wrong in a question
  ("get", "make", "take", 看, 想, 要) are not translated at all;
- the **everyday verbs** people ask about (live, work, like, move, buy, ...) translate only
  into the senses listed here: "Where does Tom live?" asks for 住, never 热闹.

The lists name surface words; callers compare them after their own stemming.
"""

from __future__ import annotations

# English words a question asks with, or that say nothing of its topic: never translated, and
# no Chinese word is glossed into one of them.
_ENGLISH_FUNCTION_TEXT = """
a an the and or but nor if then than so because although though while whether as of in on at
to for with by from about into onto over under above below between through during without
within across along around against among toward towards upon via off out up down away
i me my mine myself you your yours yourself he him his himself she her hers herself it its
itself we us our ours ourselves they them their theirs themselves one ones someone anyone
everyone somebody anybody everybody something anything everything nothing nobody none
this that these those what which who whom whose where when why how whatever whoever
there here now then today tonight yesterday tomorrow soon later earlier ago already yet still
just also too very really quite rather almost only even ever never always often sometimes
usually again once twice maybe perhaps probably certainly actually currently recently finally
eventually overall anyway instead else much many more most less least few several some any
all both each every either neither other another such same own enough lot lots kind sort
not no yes ok okay please thanks thank hi hello oh well
is am are was were be been being has have had having do does did done doing will would shall
should can could may might must ought need dare
new old first last next previous current good bad big small little long great high low right
time times day days way ways thing things part place point fact case
"""
ENGLISH_FUNCTION_WORDS = frozenset(_ENGLISH_FUNCTION_TEXT.split())

# Common English verbs whose dictionary senses are mostly wrong in a question: not translated.
_ENGLISH_VAGUE_TEXT = """
get gets got gotten getting go goes went gone going make makes made making take takes took
taken taking come comes came coming see sees saw seen seeing know knows knew known knowing
want wants wanted wanting look looks looked looking give gives gave given giving tell tells
told telling try tries tried trying keep keeps kept keeping let lets letting put puts putting
mean means meant meaning seem seems seemed seeming show shows showed shown showing hear hears
heard hearing say says said saying ask asks asked asking think thinks thought thinking turn
turns turned turning bring brings brought set sets hold holds held stand stands stood happen
happens happened become becomes became begin begins began begun end ends ended follow follows
followed mind minds thing matter matters
"""
ENGLISH_VAGUE_WORDS = frozenset(_ENGLISH_VAGUE_TEXT.split())

# Everyday verbs and the Chinese words they ask for in a question about people's lives (the
# senses CC-CEDICT lists besides these are the wrong ones: 热闹 "lively" for live, 作品 "a
# work" for work, 一样 "alike" for like, 感动 "to move (emotionally)" for move).
ENGLISH_SENSES: dict[str, tuple[str, ...]] = {
    "live": ("住", "居住", "住在", "住处", "生活"),
    "work": ("工作", "上班", "打工", "干活", "做事", "办公"),
    "like": ("喜欢", "喜爱", "爱好", "爱吃", "爱"),
    "love": ("爱", "喜欢", "热爱", "爱好"),
    "move": ("搬", "搬家", "搬到", "搬迁", "乔迁"),
    "buy": ("买", "购买", "购", "买入", "选购", "添置"),
    "sell": ("卖", "出售", "卖掉", "转让"),
    "pay": ("付", "付款", "支付", "交", "掏钱", "付费"),
    "meet": ("见面", "会面", "碰面", "遇见", "遇到", "聚"),
    "play": ("玩", "打", "踢", "弹", "玩耍"),
    "run": ("跑", "跑步", "长跑", "奔跑"),
    "help": ("帮", "帮忙", "帮助", "援助"),
    "leave": ("离开", "离职", "辞职", "走了"),
    "call": ("打电话", "电话", "叫", "称呼"),
    "use": ("用", "使用", "利用"),
    "find": ("找到", "发现", "找"),
    "feel": ("感觉", "感到"),
    "stay": ("住", "待", "留", "住宿"),
    "rent": ("租", "出租", "租房", "房租", "租金"),
    "study": ("学", "学习", "读", "读书", "念书"),
    "learn": ("学", "学习"),
    "eat": ("吃", "吃饭"),
    "drink": ("喝", "饮"),
    "cook": ("做饭", "煮", "烧菜", "下厨"),
    "drive": ("开车", "驾驶", "开"),
    "travel": ("旅行", "旅游", "出差"),
    "visit": ("参观", "拜访", "看望", "探望"),
    "start": ("开始", "开工", "入职", "开学", "创办"),
    "quit": ("辞职", "退出", "戒", "戒掉", "不干"),
    "join": ("加入", "参加", "入职", "报名"),
    "teach": ("教", "教书", "讲课"),
    "read": ("读", "看书", "阅读"),
    "write": ("写", "写作"),
    "sleep": ("睡", "睡觉"),
    "wait": ("等", "等待"),
    "send": ("发", "寄", "送"),
    # a plan, a date, a job changed: 改 / 换 (its other senses: 零钱 "small change", 变化)
    "change": ("改", "改成", "改到", "换", "换了"),
}

# Past forms the stemmer does not bring back to the verb ("bought" is not "buy").
ENGLISH_PAST_FORMS = {
    "bought": "buy",
    "sold": "sell",
    "paid": "pay",
    "met": "meet",
    "ran": "run",
    "left": "leave",
    "found": "find",
    "felt": "feel",
    "ate": "eat",
    "drank": "drink",
    "drove": "drive",
    "taught": "teach",
    "wrote": "write",
    "slept": "sleep",
    "sent": "send",
    "stayed": "stay",
}

# Chinese words a question asks with, or that say nothing of its topic: never glossed, and no
# English word is translated into one of them.
_CHINESE_FUNCTION_TEXT = """
的 地 得 了 着 过 是 我 你 您 他 她 它 们 我们 你们 他们 她们 它们 咱们 大家 自己 别人 人家
在 有 和 与 跟 同 及 或 或者 还是 而 而且 并 并且 就 都 也 还 又 再 才 只 只是 仅 吗 呢 吧 啊
呀 哦 哈 嗯 嘛 啦 哪 哪个 哪里 哪儿 哪些 哪家 这 那 这个 那个 这些 那些 这里 那里 这儿 那儿
这样 那样 这么 那么 什么 怎么 怎样 怎么样 为什么 为何 谁 几 多少 多 少 要 会 能 能够 可以
可能 应该 应当 必须 得 说 让 把 被 给 对 对于 从 到 向 往 上 下 里 中 内 外 前 后 个 位 一
不 没 没有 别 很 太 最 更 挺 非常 特别 比较 真 好 已经 曾经 正在 正 刚 刚才 现在 目前 当时
时候 什么时候 今天 昨天 明天 一直 总是 常常 经常 一下 一个 一些 一点 有点 所有 每 各 其他
另外 之前 以前 以后 之后 后来 然后 接着 所以 因为 但是 可是 不过 如果 要是 虽然 就是 其实
觉得 知道 认为 以为 应该 需要 打算 准备 结果 情况 事 事情 东西 问题 时间 地方 方面 样子
"""
CHINESE_FUNCTION_WORDS = frozenset(_CHINESE_FUNCTION_TEXT.split())

# Common Chinese verbs whose glosses are mostly wrong in a question: not glossed.
_CHINESE_VAGUE_TEXT = """
去 来 做 搞 弄 干 想 看 说 讲 听 叫 让 拿 放 用 走 出 进 起 开 打 发 带 过来 过去 出来 进来
起来 下来 上来 看看 想想 说说 听说 觉得 感觉 知道 认识 继续 需要 希望 最近 当然
"""
CHINESE_VAGUE_WORDS = frozenset(_CHINESE_VAGUE_TEXT.split())

# Everyday Chinese verbs and the English words they ask for (their other glosses: 住 "to
# stop", 搬 "to copy indiscriminately", 工作 "to operate").
CHINESE_SENSES: dict[str, tuple[str, ...]] = {
    "住": ("live", "stay", "reside"),
    "居住": ("live", "reside"),
    "搬": ("move",),
    "搬家": ("move", "move house"),
    "买": ("buy", "purchase"),
    "卖": ("sell",),
    "工作": ("work", "job"),
    "上班": ("work", "go to work", "office"),
    "喜欢": ("like", "love"),
    "爱": ("love", "like"),
    "吃": ("eat",),
    "喝": ("drink",),
    "玩": ("play",),
    "跑": ("run",),
    "跑步": ("run", "running", "jog"),
    "找": ("find", "look for", "seek"),
    "学": ("learn", "study"),
    "学习": ("learn", "study"),
    "租": ("rent",),
    # booking: CC-CEDICT's 订 stops at "to order" (to book is not among its senses here)
    "订": ("book", "reserve", "order"),
    "预订": ("book", "reserve"),
    "预定": ("book", "reserve"),
    "付": ("pay",),
    "见面": ("meet",),
    "帮": ("help",),
    "帮忙": ("help",),
    # going back and starting: 回 / 开始 were vague verbs, so "东东哪天回的曼彻斯特？" lost
    # "Flying back to Manchester" and "试用从哪天开始？" "a trial starting August 3"
    "回": ("back", "return"),
    "回来": ("back", "return"),
    "回去": ("back", "return"),
    "开始": ("start",),
}
