"""Word lists behind the extraction filters and the external-content guard (behaviour §15–16).

Chinese words match as substrings (Chinese has no spaces); English words match as whole
words, case-insensitively.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..contracts.secrets import SENSITIVE_ZH as _SENSITIVE_ZH
from ..contracts.secrets import is_sensitive


def _english(words: list[str]) -> re.Pattern[str]:
    alternatives = "|".join(sorted((re.escape(w).replace(r"\ ", r"\s+") for w in words),
                                   key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_'])(?:{alternatives})(?![A-Za-z0-9_])", re.IGNORECASE)


# --- sensitive content: one rule for extraction, save_memory and /save ----------------------
SENSITIVE_ZH = _SENSITIVE_ZH


def mentions_sensitive(text: str) -> bool:
    """True when ``text`` names a credential or personal identifier, or contains a value that
    looks like one: the one rule of ``contracts.secrets``, shared with save_memory and /save."""
    return is_sensitive(text)


# --- durable-fact cues: without one, the input is not worth a model call -------------------
CUES_ZH = ("我", "项目", "仓库", "团队", "偏好", "习惯", "默认", "统一", "使用", "采用", "基于",
           "构建", "技术栈", "语言", "框架", "版本", "编码", "规范", "禁止", "不要", "一律",
           "以后", "总是", "始终", "必须", "遵循", "约定", "今后", "往后", "从现在起",
           "从现在开始", "一直", "务必", "要求")
_CUES_EN = _english([
    "i", "i'm", "i've", "we", "we're", "our", "us", "my", "project", "repo", "repository",
    "codebase", "team", "prefer", "prefers", "preferred", "preference", "habit", "usually",
    "default", "defaults", "standard", "standardise", "standardize", "convention", "conventions",
    "use", "uses", "using", "adopt", "adopted", "based on", "build", "builds", "built with",
    "stack", "language", "framework", "version", "encoding", "style", "forbid", "forbidden",
    "never", "don't", "do not", "must", "always", "from now on", "going forward", "in future",
    "target", "targets", "like", "want", "follow", "follows", "require", "requires",
    "required", "should", "rule", "rules", "policy",
])


def has_fact_cue(text: str) -> bool:
    """True when ``text`` contains a durable-fact cue word (behaviour §15)."""
    return any(word in text for word in CUES_ZH) or bool(_CUES_EN.search(text))


# --- temporary state: facts about this moment, not durable ones (stricter than the reference) --------
TEMPORARY_ZH = ("今天", "明天", "昨天", "现在", "刚刚", "刚才", "这次", "本轮", "临时", "暂时",
                "马上", "立刻", "顺便", "报错", "先帮", "先把", "先看", "待会", "等会", "今晚",
                "这周", "本周", "这两天", "这几天")
_TEMPORARY_EN = _english([
    "today", "tomorrow", "yesterday", "tonight", "now", "right now", "just now", "this time",
    "for now", "temporarily", "at the moment", "by the way", "right away", "this week",
    "this sprint", "for the time being", "for the moment", "in the meantime",
])
# Not about the moment, though they contain a listed word: "from now on", "from today on",
# "starting today", 从现在起, 现在起, 从今天起 announce a lasting rule (like 以后); 优先看 /
# 事先把 / 预先 state a standing priority or habit (先 is part of another word there); 实现在 /
# 体现在 / 表现在 / 出现在 are "X lives in / shows in".
_NOT_TEMPORARY = re.compile(
    r"(?i)\bfrom\s+(?:now|today)\s+(?:on(?:wards?)?|forward)\b|\bstarting\s+(?:today|now)\b"
    r"|从(?:现在|今天|今日)(?:起|开始)|(?:现在|今天)起|[优事预]先|[实体表出]现在")


def is_temporary(sentence: str) -> bool:
    """True when the sentence describes the current moment rather than a lasting fact."""
    sentence = _NOT_TEMPORARY.sub(" ", sentence)
    if any(word in sentence for word in TEMPORARY_ZH):
        return True
    return bool(_TEMPORARY_EN.search(sentence))


# --- reported speech: someone else's claim, not the person's own fact (stricter than the reference) ----
REPORTED_ZH = ("网上看到", "听说", "据说", "据称", "据报道", "有人建议")
# Someone or something else 说 / 称 / 提到 / 写道 / 认为: a web page, a document, a colleague, a model.
# 说明 (instructions) and 说服 are other words: 文档说明都放在 docs/ is the person's own fact;
# 其他 is "other", not "he".
_REPORTED_ZH_SPEAKER = re.compile(
    r"(?i)(?:网页上|网页里|网页|网上|网站|网友|博客里|博客|文章里|文章|帖子|论坛|教程里|教程|视频"
    r"|群里|群友|文档里|文档|官方|作者|同事|朋友|老板|领导|经理|组长|客户|别人|有人|大家|专家"
    r"|(?<!其)[他她]们?|chatgpt|gpt|claude|copilot|gemini|\bai\b|模型|助手)"
    r"\s*(?:说(?![明服])|称|提到|声称|写道|认为)")
_SPEAKER = (r"someone|somebody|people|everyone|a\s+blog|the\s+blog|an?\s+article|the\s+article"
            r"|a\s+website|the\s+website|a\s+web\s*page|the\s+web\s*page|the\s+page|this\s+page"
            r"|a\s+post|the\s+post|the\s+internet|stack\s*overflow|chatgpt|gpt|copilot|claude"
            r"|a\s+tutorial|the\s+tutorial|a\s+video|the\s+video|a\s+forum|reddit|twitter"
            r"|he|she|they|(?:my|our|a|the)\s+(?:colleague|co-?worker|teammate|friend|boss"
            r"|manager|lead|pm|cto|ceo|senior|mentor|teacher|professor|client|customer)s?"
            r"|(?:the|this|that)\s+(?:docs?|documentation|readme|wiki|error(?:\s+message)?|log"
            r"|output|comment|issue|ticket|answer|tool|model|ai|assistant|bot)")
_REPORTED_EN = re.compile(
    rf"(?i)\b(?:{_SPEAKER})\s+(?:says?|said|wrote|writes|claims?|claimed|suggests?|suggested"
    r"|thinks?|thought|told\s+me|mentioned|recommends?|recommended)\b"
    # "according to the blog" passes a claim on; "according to PEP 8" states the own rule.
    rf"|\baccording\s+to\s+(?:{_SPEAKER}|him|her|them|some\s+\w+)\b"
    r"|\bi\s+(?:read|saw)\s+(?:online|somewhere|on\s+(?:a|the)\s+\w+)"
    r"|\bi\s+heard\b|\bit\s+is\s+said\b|\brumou?r\s+has\s+it\b")


def is_reported(sentence: str) -> bool:
    """True when the sentence passes on what someone or something else said (a web page, an
    article, another person) rather than stating the person's own fact."""
    return (any(word in sentence for word in REPORTED_ZH)
            or bool(_REPORTED_ZH_SPEAKER.search(sentence)) or bool(_REPORTED_EN.search(sentence)))


# --- questions ---------------------------------------------------------------------------------
_AUX = (r"do|does|did|is|are|was|were|can|could|should|would|will|shall|may|have|has"
        r"|isn't|aren't|doesn't|didn't|won't|can't")
_SUBJECT = r"we|you|i|they|it|this|that|these|those|the|there|he|she|our|your|my|their|any"
_WH = r"why|what|how|which|where|when|who|whose|whom"
# "Do we use Redis" asks; "Do not commit build output" instructs: the subject decides.
_QUESTION_START = re.compile(rf"^(?:{_AUX})\s+(?:{_SUBJECT})(?![A-Za-z0-9_])", re.IGNORECASE)
_WH_START = re.compile(rf"^(?:{_WH})(?:['’]s\b|\s+(?:{_AUX}|{_SUBJECT})(?![A-Za-z0-9_]))",
                       re.IGNORECASE)
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d+[.)、])\s+")
# A Chinese sentence that ends in a question particle or question word asks, whatever its mark.
_ZH_QUESTION_END = ("吗", "呢", "么", "嘛", "多少", "哪个", "哪些", "哪里", "哪儿", "如何",
                    "为何", "几个", "谁")
# Without a closing full stop these open or make a question (是否用 Lombok 由模块决定。 states).
_ZH_QUESTION_START = ("为什么", "为啥", "怎么", "怎样", "如何", "是否", "能否", "可否", "请问",
                      "难道")
_ZH_A_NOT_A = ("能不能", "要不要", "可不可以", "会不会", "有没有", "用不用", "对不对", "行不行",
               "好不好")
# 用的是什么数据库 asks; 不管什么情况都用 UTF-8 / 什么项目都用 uv state a rule (concessive).
_ZH_QUESTION_WORDS = ("什么", "哪个", "哪些", "哪种", "哪里", "哪儿", "多少", "怎么", "为什么")
_ZH_CONCESSIVE = re.compile(r"不管|无论|不论|任何|(?:什么|哪个|哪些|哪里|多少|怎么)\S{0,3}?[都也]")


def is_question(sentence: str, terminator: str) -> bool:
    """A sentence ending in ? or ？, a Chinese one ending in a question particle or word
    (吗, 呢, 什么, 多少, …) or asking 是不是, or one that opens like a question (Do we…,
    Why do…, 为什么…, 能不能…) without a closing full stop."""
    if terminator and terminator in "?？":
        return True
    body = _LIST_MARK.sub("", sentence.strip().rstrip("。.！!；;，,、 ~～…"))
    if body.endswith(_ZH_QUESTION_END) or "是不是" in body:
        return True
    if terminator and terminator in ".。!！":
        return False
    if body.startswith(_ZH_QUESTION_START) or any(w in body for w in _ZH_A_NOT_A):
        return True
    if any(w in body for w in _ZH_QUESTION_WORDS) and not _ZH_CONCESSIVE.search(body):
        return True
    if _QUESTION_START.match(body):
        return True
    # "Why do we…" asks; "When we release, we tag it" states (a clause, then the statement).
    return _WH_START.match(body) is not None and not re.search(r"[,，]", body)


# --- the person asks to remember (the guard's exception, behaviour §16) ----------------------------
REMEMBER_ZH = ("记住", "记一下", "记下", "记着", "牢记", "保存到记忆", "存到记忆", "存入记忆",
               "写入记忆", "写到记忆", "加到记忆", "加入记忆", "放进记忆", "记到记忆", "别忘了",
               "不要忘")
_REMEMBER_EN = _english([
    "remember", "memorise", "memorize", "save to memory", "save this to memory",
    "save it to memory", "add to memory", "add this to memory", "store in memory",
    "keep in mind", "note this down", "make a note", "don't forget",
])


# "Do you remember what we changed?" asks about the past; it does not ask to save anything.
_RECALL_EN = re.compile(r"(?i)\b(?:do|did|does|can't|cannot)\s+(?:you|we|i)\s+remember\b")


@lru_cache(maxsize=256)
def asks_to_remember(text: str) -> bool:
    """True when the person's own words explicitly ask to remember something."""
    if any(word in text for word in REMEMBER_ZH):
        return True
    return bool(_REMEMBER_EN.search(_RECALL_EN.sub(" ", text)))
