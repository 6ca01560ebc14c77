"""The search pipeline's own words (stage names, notes, the reasons a gate gives) in the
UI's language. The library writes them in English for logs, the CLI and the API; the search
page shows them translated where a pattern below knows the sentence, and as written (with its
numbers and names) where none does, so a new note is never lost, only untranslated.

A translated stage or gate name keeps its English name as a tooltip (the name the config,
the logs and the API use)."""

from __future__ import annotations

import re

STAGES_ZH = {
    "fusion": "融合",
    "adaptive fusion": "自适应融合",
    "recency": "新近度",
    "importance": "重要性",
    "authority": "权威度",
    "length": "长度",
    "decay": "时间衰减",
    "access": "访问强化",
    "time_weight": "时间权重",
    "same_user": "同一用户",
    "self_reference": "自我指涉",
    "named_speaker": "点名的发言者",
    "session_lift": "会话提升",
    "neighbour_lift": "相邻提升",
    "neighbour": "相邻消息",
    "link_lift": "关联提升",
    "link": "关联",
    "time_intent": "时间意图",
    "relevance": "相关性",
    "answerability": "可回答性",
    "reply_after_question": "问题后的回答",
    "diversity": "多样性",
    "mmr": "多样性（MMR）",
    "rerank": "重排序",
    "min_semantic": "语义下限",
    "noise": "噪声过滤",
    "min_score": "分数下限",
    "fetch": "读取",
    # the timings of a search
    "lexical": "关键词",
    "embed": "嵌入查询",
    "vector": "向量",
    "fuse_fetch": "融合与读取",
    "stages": "各阶段",
    "total": "合计",
}

_WORDS_ZH = {
    "vector": "向量",
    "lexical": "关键词",
    "keyword": "关键词",
    " and ": "和",
    "cosine fallback": "余弦回退",
    "weighted": "加权",
}
_NUM = r"(-?[\d.]+(?:e-?\d+)?)"

# (the English sentence, its Chinese); {0}, {1}... are the pattern's groups, kept as written.
_SENTENCES_ZH: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p), zh)
    for p, zh in [
        (
            r"^noise gate: the query is only a greeting, acknowledgement, emoji or punctuation$",
            "噪声过滤：查询只是问候、应答、表情或标点，没有可查找的内容",
        ),
        (r"^greeting, refusal, heartbeat or memory meta-talk$", "问候、拒绝、心跳或谈论记忆本身"),
        (r"^deleted meanwhile or outside the filters$", "期间已被删除，或不在筛选范围内"),
        (rf"^cosine {_NUM} < {_NUM}$", "余弦 {0} < {1}"),
        (rf"^score {_NUM} < {_NUM}$", "分数 {0} < {1}"),
        (r"^outside '(.+)'$", "不在「{0}」之内"),
        (r"^time intent: '(.+)'$", "时间意图：「{0}」"),
        (
            r"^aggregate question: at most (\d+) hits per session on top$",
            "汇总类问题：靠前的结果每个会话最多 {0} 条",
        ),
        (
            r"^more than (\d+) hits from session (.+): moved down$",
            "会话 {1} 的结果超过 {0} 条：已下移",
        ),
        (
            r"^best hit of a session missing from the top: given a place$",
            "某个会话的最佳结果不在前列：已为它留出位置",
        ),
        (
            rf"^near-duplicate of a better hit \(cosine {_NUM}\): ranked at {_NUM} x its score$",
            "与一条更好的结果近乎重复（余弦 {0}）：按其分数的 {1} 倍排序",
        ),
        (
            r"^fast lane: (\d+) candidates still waiting for (.+), found by their fast vectors$",
            "快速通道：{0} 个候选仍在等待 {1} 的向量，已由快速向量找到",
        ),
        (r"^names: the embedded query also says (.+)$", "名字：用于嵌入的查询还包含 {0}"),
        (
            rf"^lexical channel weighted x{_NUM} \(its best hits hold {_NUM} of the query\)$",
            "关键词通道权重 ×{0}（其最佳结果覆盖查询的 {1}）",
        ),
        (r"^link: (.+)$", "关联：{0}"),
        (r"^translate: the (.+) query also says (.+)$", "翻译：{0}查询还包含 {1}"),
        (
            rf"^relevance gate: nothing relevant: best relevance {_NUM} < (\S+) {_NUM}$",
            "相关性门限：没有相关内容：最佳相关性 {0} < {1} {2}",
        ),
        (
            rf"^nothing relevant: best relevance {_NUM} < (\S+) {_NUM}$",
            "没有相关内容：最佳相关性 {0} < {1} {2}",
        ),
        (r"^relevance gate: (.+)$", "相关性门限：{0}"),
        (
            rf"^answerability gate: nothing relevant: best relevance {_NUM} < (\S+) {_NUM}, and "
            rf"best answerability {_NUM} < search.answerability_threshold {_NUM}; (.+)$",
            "可回答性门限：没有相关内容：最佳相关性 {0} < {1} {2}，且最佳可回答性 {3} < "
            "search.answerability_threshold {4}；{5}",
        ),
        (
            rf"^nothing relevant: best relevance {_NUM} < (\S+) {_NUM}, and best answerability "
            rf"{_NUM} < search.answerability_threshold {_NUM}; (.+)$",
            "没有相关内容：最佳相关性 {0} < {1} {2}，且最佳可回答性 {3} < "
            "search.answerability_threshold {4}；{5}",
        ),
        (
            rf"^answerability: answered though nothing relevant: best relevance {_NUM} < (\S+) "
            rf"{_NUM}: best answerability {_NUM} >= search.answerability_threshold {_NUM}; (.+)$",
            "可回答性：虽然没有相关内容（最佳相关性 {0} < {1} {2}），最佳可回答性 {3} >= "
            "search.answerability_threshold {4}，仍然回答；{5}",
        ),
        (
            r"^relevance: USE read (\d+) candidates in the other script$",
            "相关性：USE 读取了另一种文字的 {0} 个候选",
        ),
        (
            r"^relevance: the latent terms of the best (\d+) candidates$",
            "相关性：最佳 {0} 个候选的潜在词",
        ),
        (r"^reply_after_question: below its reply (.+)$", "问题后的回答：排在它的回答 {0} 之后"),
        (
            r"^reranker (\S+) failed \((.*)\); used cosine similarity instead$",
            "重排序器 {0} 失败（{1}）；改用余弦相似度",
        ),
        (r"^~0: only words most records share$", "≈0：只匹配到大多数记录都有的词"),
        # why an injection preview injects nothing (recall.messages, recall.memories)
        (r"^none of this turn's inputs was archived$", "这一轮的输入都没有存档"),
        (r"^autorecall.enabled is off$", "autorecall.enabled 已关闭"),
        (r"^empty after removing metadata$", "去掉元数据后为空"),
        (r"^a slash command$", "斜杠命令"),
        (r"^greeting, confirmation, emoji or heartbeat$", "问候、确认、表情或心跳"),
        (
            r"^shorter than (\d+) characters without a memory cue$",
            "短于 {0} 个字符，且没有提到记忆",
        ),
        (r"^nothing relevant$", "没有相关内容"),
        (r"^injected recently$", "最近已注入过"),
        (
            rf"^no hit reached recall.answerability_threshold {_NUM}: best answerability "
            rf"{_NUM}; (.+)$",
            "没有命中达到 recall.answerability_threshold {0}：最高可回答性 {1}；{2}",
        ),
    ]
]


def stage_name(name: str, lang: str) -> str:
    """A stage (or gate, or timing) name: "fusion (weighted)" -> "融合（weighted）"."""
    if lang != "zh":
        return name
    base, _, rest = name.partition(" (")
    shown = STAGES_ZH.get(base, base)
    return f"{shown}（{_words(rest.removesuffix(')'))}）" if rest else shown


def sentence(text: str, lang: str) -> str:
    """A note or a gate's reason in ``lang``; as written where no pattern knows it."""
    if lang != "zh":
        return text
    for pattern, zh in _SENTENCES_ZH:
        m = pattern.match(text)
        if m:
            groups = list(m.groups())
            if zh.startswith("翻译"):  # "the vector and lexical query": channel names
                groups[0] = _words(groups[0])
            return zh.format(*groups)
    return text


def _words(text: str) -> str:
    for en, zh in _WORDS_ZH.items():
        text = text.replace(en, zh)
    return text
