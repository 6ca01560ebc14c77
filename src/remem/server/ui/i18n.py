"""English and Chinese text of the web UI. The language is ``?lang=en|zh`` (remembered in a
cookie), else the browser's Accept-Language, else English. A key missing from Chinese falls
back to English; a key missing from both shows as the key itself, so a typo is visible."""

from __future__ import annotations

from collections.abc import Callable

LANGUAGES = ("en", "zh")
LANG_COOKIE = "remem_lang"

EN: dict[str, str] = {
    "app": "remem",
    "nav.overview": "Overview", "nav.conversations": "Conversations",
    "nav.memories": "Memories", "nav.search": "Search", "nav.settings": "Settings",
    "nav.logout": "Sign out", "signed_in_as": "Signed in as", "operator": "operator (all records)",
    "login.title": "Sign in", "login.token": "Bearer token",
    "login.help": "This server needs a token (server.tokens). You will see only what the "
                  "token's agent may read.",
    "login.submit": "Sign in", "login.bad": "Unknown token.",
    "overview.title": "Overview", "overview.records": "Records", "overview.by_kind": "By kind",
    "overview.by_scope": "By scope", "overview.by_platform": "By platform",
    "overview.by_model": "Vectors by model", "overview.index": "Index status",
    "overview.sessions": "Sessions", "overview.queue": "Indexing queue",
    "overview.dropped": "dropped (total)", "overview.queued": "queued now",
    "overview.size": "Store size", "overview.chart": "Messages and memories over time",
    "overview.backfill": "Run backfill", "overview.backfill_running": "Backfill is running…",
    "overview.backfill_started": "Backfill started: pending records are being embedded.",
    "overview.backfill_last": "Last backfill", "overview.no_data": "Nothing stored yet.",
    "overview.per_bucket": "per {days} day(s)",
    "kind.message": "messages", "kind.memory": "memories",
    "one.message": "message", "one.memory": "memory",
    "status.pending": "pending", "status.indexed": "indexed", "status.failed": "failed",
    "status.skipped": "skipped",
    "conv.title": "Conversations", "conv.session": "Session", "conv.messages": "messages",
    "conv.last": "last active", "conv.none": "No conversations yet.",
    "conv.platform": "Platform", "conv.group": "Group",
    "conv.older": "Older", "conv.newer": "Newer", "conv.preview": "what would be injected",
    "conv.of": "of",
    "mem.title": "Memories", "mem.one": "Memory", "mem.scope": "Scope", "mem.category": "Category",
    "mem.state": "State", "mem.state.current": "current", "mem.state.superseded": "superseded",
    "mem.state.all": "all", "mem.filter": "Filter", "mem.any": "any",
    "mem.importance": "Importance", "mem.created": "Created", "mem.none": "No memories match.",
    "mem.bulk_delete": "Delete all matching…", "mem.history": "History",
    "mem.valid_from": "valid from", "mem.valid_to": "valid to", "mem.replaced_by": "replaced by",
    "mem.current": "current", "mem.undone": "undone", "mem.undo": "Undo",
    "mem.undo_help": "Close this version and make the one it replaced current again",
    "mem.restore": "Restore this version",
    "mem.restore_help": "Make this version current again and close the one that replaced it",
    "mem.edit": "Save as new version", "mem.text": "Text", "mem.delete": "Delete…",
    "mem.edited": "Saved as a new version; the old one is in the history.",
    "mem.undo_done": "Undone: the earlier version is current again.",
    "mem.deleted": "Deleted.", "mem.source": "Source messages",
    "mem.edit_help": "Editing never overwrites: it stores a new version and closes this one.",
    "mem.found": "{n} memories",
    "confirm.title": "Please confirm", "confirm.delete_one": "Delete this record for good?",
    "confirm.delete_many": "Delete {n} memories for good? (dry run: nothing deleted yet)",
    "confirm.sample": "The first of them", "confirm.yes": "Yes, delete",
    "confirm.cancel": "Cancel", "confirm.changed": "The matching set changed since the preview "
                                                  "({was} → {now}); check again.",
    "confirm.deleted_many": "Deleted {n} memories.",
    "search.title": "Search with explain", "search.query": "Query", "search.kind": "Kind",
    "search.scope": "Scope", "search.session": "Session", "search.since": "Since",
    "search.until": "Until", "search.channels": "Channels", "search.k": "Top k",
    "search.go": "Search", "search.inject": "Show the injected block",
    "search.turn": "Turn (message id, chat path)", "search.no_hits": "No hits.",
    "search.dropped": "Dropped by a gate", "search.stage": "stage",
    "search.reason": "reason", "search.score": "score", "search.vector": "vector",
    "search.lexical": "lexical", "search.rank": "rank", "search.degraded":
        "Vector search did not run: lexical results only.",
    "search.open": "open in conversation", "search.chat_path": "Chat path (recall_for_turn)",
    "search.memory_path": "Memory path (auto-recall)", "search.nothing_injected":
        "Nothing would be injected", "search.turn_help":
        "Pick a message in Conversations (\"what would be injected\") or give its id.",
    "search.timings": "Timings (ms)", "search.loading": "Working out the injected blocks…", "search.preview_note":
        "A preview: it is not counted as an injection (no cross-turn dedup).",
    "settings.title": "Settings", "settings.key": "Key", "settings.value": "Value",
    "settings.source": "Source", "settings.readonly":
        "Read-only: change settings in the config file or REMEM_* environment variables.",
    "settings.audit": "Audit log (latest)", "settings.audit_file": "Audit file",
    "settings.hidden": "(hidden: operator only)",
    "audit.time": "Time", "audit.who": "Who", "audit.action": "Action", "audit.ids": "Ids",
    "error.title": "Error", "error.back": "Back",
    "record.role": "role", "record.speaker": "speaker", "record.status": "index",
    "record.id": "id", "record.scope": "scope",
    "lang.switch": "中文",
}  # fmt: skip

ZH: dict[str, str] = {
    "nav.overview": "总览", "nav.conversations": "会话", "nav.memories": "记忆",
    "nav.search": "搜索", "nav.settings": "设置", "nav.logout": "退出",
    "signed_in_as": "当前身份", "operator": "运维者（全部记录）",
    "login.title": "登录", "login.token": "访问令牌",
    "login.help": "此服务需要令牌（server.tokens）。你只能看到该令牌对应智能体可读的内容。",
    "login.submit": "登录", "login.bad": "未知的令牌。",
    "overview.title": "总览", "overview.records": "记录数", "overview.by_kind": "按类型",
    "overview.by_scope": "按作用域", "overview.by_platform": "按平台",
    "overview.by_model": "按模型的向量", "overview.index": "索引状态",
    "overview.sessions": "会话数", "overview.queue": "索引队列",
    "overview.dropped": "已丢弃（累计）", "overview.queued": "排队中",
    "overview.size": "存储大小", "overview.chart": "消息与记忆随时间变化",
    "overview.backfill": "运行补建索引", "overview.backfill_running": "补建索引进行中…",
    "overview.backfill_started": "已开始补建索引：正在为待处理记录生成向量。",
    "overview.backfill_last": "上次补建", "overview.no_data": "还没有任何记录。",
    "overview.per_bucket": "每 {days} 天",
    "kind.message": "消息", "kind.memory": "记忆", "one.message": "消息", "one.memory": "记忆",
    "status.pending": "待处理", "status.indexed": "已索引", "status.failed": "失败",
    "status.skipped": "跳过",
    "conv.title": "会话", "conv.session": "会话", "conv.messages": "条消息",
    "conv.last": "最近活动", "conv.none": "还没有会话。", "conv.platform": "平台",
    "conv.group": "群组", "conv.older": "更早", "conv.newer": "更新",
    "conv.preview": "将注入的内容", "conv.of": "/",
    "mem.title": "记忆", "mem.one": "记忆", "mem.scope": "作用域", "mem.category": "类别", "mem.state": "状态",
    "mem.state.current": "当前", "mem.state.superseded": "已被取代", "mem.state.all": "全部",
    "mem.filter": "筛选", "mem.any": "任意", "mem.importance": "重要性",
    "mem.created": "创建时间", "mem.none": "没有匹配的记忆。", "mem.bulk_delete": "删除全部匹配项…",
    "mem.history": "历史", "mem.valid_from": "生效于", "mem.valid_to": "失效于",
    "mem.replaced_by": "被取代为", "mem.current": "当前", "mem.undone": "已撤销",
    "mem.undo": "撤销", "mem.undo_help": "让此版本失效，并恢复被它取代的版本",
    "mem.restore": "恢复此版本", "mem.restore_help": "让此版本重新生效，并让取代它的版本失效",
    "mem.edit": "另存为新版本", "mem.text": "内容", "mem.delete": "删除…",
    "mem.edited": "已保存为新版本；旧版本保留在历史中。", "mem.undo_done": "已撤销：之前的版本重新生效。",
    "mem.deleted": "已删除。", "mem.source": "来源消息",
    "mem.edit_help": "编辑不会覆盖原内容：它会保存一个新版本，并让当前版本失效。",
    "mem.found": "{n} 条记忆",
    "confirm.title": "请确认", "confirm.delete_one": "永久删除这条记录？",
    "confirm.delete_many": "永久删除 {n} 条记忆？（预演：尚未删除任何内容）",
    "confirm.sample": "其中前几条", "confirm.yes": "确认删除", "confirm.cancel": "取消",
    "confirm.changed": "预览之后匹配集合发生了变化（{was} → {now}）；请重新检查。",
    "confirm.deleted_many": "已删除 {n} 条记忆。",
    "search.title": "搜索与解释", "search.query": "查询", "search.kind": "类型",
    "search.scope": "作用域", "search.session": "会话", "search.since": "起始",
    "search.until": "截止", "search.channels": "通道", "search.k": "前 k 条",
    "search.go": "搜索", "search.inject": "显示将注入的内容块",
    "search.turn": "轮次（消息 id，对话路径）", "search.no_hits": "没有结果。",
    "search.dropped": "被过滤门丢弃", "search.stage": "阶段", "search.reason": "原因",
    "search.score": "分数", "search.vector": "向量", "search.lexical": "关键词",
    "search.rank": "排名", "search.degraded": "向量搜索未运行：仅关键词结果。",
    "search.open": "在会话中打开", "search.chat_path": "对话路径（recall_for_turn）",
    "search.memory_path": "记忆路径（自动召回）", "search.nothing_injected": "不会注入任何内容",
    "search.turn_help": "在“会话”中选择一条消息（“将注入的内容”），或填写其 id。",
    "search.timings": "耗时（毫秒）", "search.loading": "正在计算将注入的内容…", "search.preview_note": "这是预览：不计为一次注入（不做跨轮去重）。",
    "settings.title": "设置", "settings.key": "键", "settings.value": "值",
    "settings.source": "来源", "settings.readonly": "只读：请在配置文件或 REMEM_* 环境变量中修改设置。",
    "settings.audit": "审计日志（最近）", "settings.audit_file": "审计文件",
    "settings.hidden": "（已隐藏：仅运维者可见）",
    "audit.time": "时间", "audit.who": "操作者", "audit.action": "操作", "audit.ids": "记录 id",
    "error.title": "错误", "error.back": "返回",
    "record.role": "角色", "record.speaker": "发言者", "record.status": "索引",
    "record.id": "id", "record.scope": "作用域",
    "lang.switch": "English",
}  # fmt: skip

CATALOGS = {"en": EN, "zh": ZH}


def choose_language(query_lang: str | None, cookie: str | None, accept: str | None) -> str:
    for value in (query_lang, cookie):
        if value in LANGUAGES:
            return value
    for part in (accept or "").split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("zh"):
            return "zh"
        if tag.startswith("en"):
            return "en"
    return "en"


def translator(lang: str) -> Callable[..., str]:
    catalog = CATALOGS.get(lang, EN)

    def t(key: str, **values: object) -> str:
        text = catalog.get(key) or EN.get(key) or key
        return text.format(**values) if values else text

    return t
