"""How English says the fact layer's families: the rules ``extract`` runs over each sentence.

``{S}`` is a subject ("I", "we", "my sister Kate", "Tom", "Mia's", "he"); ``{S0}`` is the same
or nothing at the start of a clause ("Moved to Cork last weekend!"). A value runs to the end
of its clause and is then cut before the words that only qualify it ("now", "since May",
"last week", "for now", "as a ..."), see ``clip``.
"""

from __future__ import annotations

import re

from remem.facts.rule import Rule, rule
from remem.facts.subjects import PARTNER_EN, RELATIONS_EN
from remem.facts.values_en import KINDS, clip, no, preference
from remem.text.assertion import not_a_statement
from remem.text.lazy_re import lazy_compile

_REL = "|".join(sorted(RELATIONS_EN, key=len, reverse=True))
_PARTNER = "|".join(sorted(PARTNER_EN, key=len, reverse=True))
# Capitalised words that start sentences or are not people
_NOT_NAME = (
    r"(?!(?:The|This|That|It|My|Our|Your|Their|His|Her|Also|And|But|So|Sure|Yes|Yeah|Oh|Ok|"
    r"Okay|Excited|Looks|Sounds|Seems|Feels|They|These|Those|There|Here|Monday|Tuesday|Wednesday|"
    r"Thursday|Friday|Saturday|Sunday|Big|Update|Quick|Sad|Good|Just|Now|Still|If|When|What|Where|Who|Why|How|Then|"
    r"Honestly|Reminder|Personal|Announcement|Agreed|Thanks|Thank|Hi|Hey|Hello|Me|Mine|"
    r"Today|Yesterday|Tomorrow|Finally|Well|Anyway|Btw|Fyi|Lol|Sorry|Please|Perfect|"
    r"Can|Could|Would|Should|Will|Did|Do|Does|Is|Are|Was|Were|Moved|Sold|Bought|Got|"
    r"First|New|Old|Great|Nice|Cool|Busy|Staying)\b)"
)
NAME = rf"{_NOT_NAME}[A-Z][a-z]+"
_SUBJ = (
    rf"(?P<subj>\bI\b|\b[Ww]e\b|\b(?:[Mm]y|[Oo]ur)\s+(?:{_REL})(?:\s+{NAME})?|"
    rf"\b{NAME}(?:'s\s+(?:{_REL}))?|\b[Hh]e\b|\b[Ss]he\b)"
)
_CLAUSE_START = r"(?:^|(?<=[,:;!]\s)|(?<=\bthen\s)|(?<=\band\s))"
S = _SUBJ
# the same, split by the verb form they take: "I love" / "Tom loves"
_FIRST = r"(?P<subj>\bI\b|\b[Ww]e\b)"
_THIRD = (
    rf"(?P<subj>\b(?:[Mm]y|[Oo]ur)\s+(?:{_REL})(?:\s+{NAME})?|\b{NAME}(?:'s\s+(?:{_REL}))?|"
    r"\b[Hh]e\b|\b[Ss]he\b)"
)
S0 = rf"(?:{_SUBJ}|{_CLAUSE_START}(?P<implicit>))"
_BE = r"(?:'m|'re|'s|\s+am|\s+are|\s+is)"
_ADV = r"(?:\s+(?:now|still|currently|also|just|recently|finally|already|actually|officially))*"
V = r"(?P<value>[^,.;!?()\"“”]+)"
CAP = r"(?P<value>[A-Z0-9][\w'&-]*(?:\s+(?:&\s+)?[A-Z0-9][\w'&-]*)*)"
_JOB_WORD = (
    r"(?:engineer|designer|developer|teacher|analyst|lead|manager|librarian|auditor|"
    r"nurse|doctor|writer|editor|director|founder|ceo|cto|student|chef|lawyer|accountant|"
    r"architect|scientist|researcher|consultant|intern|therapist|physiotherapist|pharmacist|"
    r"officer|assistant|programmer|artist|photographer|journalist|producer|pilot|driver|"
    r"barista|technician|mechanic|administrator|coordinator|specialist|supervisor|professor|"
    r"lecturer|tutor|surgeon|dentist|vet|paramedic|musician|actor|freelancer|copywriter)s?\b"
)
_JOB = rf"(?:[\w-]+\s+){{0,3}}?{_JOB_WORD}(?:\s+{_JOB_WORD})?"
_PLACE_OF_WORK = (
    r"(?:company|startup|start-up|agency|firm|studio|bank|school|hospital|clinic|shop|store|"
    r"consultancy|charity|brewery|bakery|restaurant|cafe|lab|publisher|practice|nonprofit)"
)
_ANIMAL = (
    r"dog|cat|puppy|kitten|beagle|corgi|tabby|labrador|poodle|terrier|spaniel|husky|shiba|"
    r"hamster|rabbit|bunny|parrot|budgie|tortoise|turtle|goldfish|guinea pig|ferret|snake|horse"
)
_DIET = r"vegan|vegetarian|pescatarian|pescetarian|keto|halal|kosher|gluten-free|teetotal"
_APPS = {
    k.casefold(): k.casefold()
    for k in (
        "Telegram",
        "WeChat",
        "Instagram",
        "Twitter",
        "Discord",
        "Signal",
        "WhatsApp",
        "Slack",
    )
}
_APP = "|".join(_APPS)
I_ = re.IGNORECASE
_OFFER = rf"{S0}(?:'ve|\s+have|\s+has)?\s*(?i:got|received|accepted)\s+(?:an?\s+|the\s+)?(?:job\s+)?offer\s+(?:from|at)\s+{V}"
RULES: list[Rule] = [
    # -------------------------------------------------------------- where someone lives
    rule(rf"{S}{_ADV}\s+used\s+to\s+live\s+in\s+{V}", "lives_in", tense="past"),
    rule(
        rf"{S}\s+(?:don't|do not|doesn't|does not|no longer)\s+live\s+in\s+{CAP}",
        "lives_in",
        polarity="negate",
    ),
    rule(rf"{S}{_ADV}\s+live[sd]?{_ADV}\s+in\s+{CAP}", "lives_in"),
    rule(rf"{S}{_BE}{_ADV}\s+(?:living|based|settled)\s+in\s+{CAP}", "lives_in"),
    rule(
        rf"{S0}(?:{_BE})?{_ADV}\s*(?i:staying)\s+(?:at|with)\s+[\w' ]+?\s+in\s+{CAP}",
        "lives_in",
        0.8,
    ),
    rule(
        rf"{S0}(?:'ve|\s+have|\s+has)?{_ADV}\s*(?i:moved|relocated)\s+(?:back\s+)?(?:to|into)\s+"
        rf"(?:(?:a|an|the|my|our|his|her|their)\s+(?:new\s+)?(?:flat|place|house|apartment|home)\s+"
        rf"(?:in|on)\s+)?{V}",
        "lives_in",
        0.85,
    ),
    rule(
        rf"(?P<subj>\b[Mm]y|\b{NAME}'s)\s+(?:new\s+)?(?:place|flat|home|house|apartment)\s+is\s+in\s+{CAP}",
        "lives_in",
    ),
    rule(
        rf"{S0}{_BE}?\s*(?:going\s+to\s+|gonna\s+)?(?:moving|relocating)\s+(?:back\s+)?to\s+{CAP}",
        "lives_in",
        0.85,
        tense="plan",
        plan_verb="move to",
    ),
    rule(
        rf"{S}(?:'ll|\s+will)\s+(?:be\s+)?mov(?:e|ing)\s+to\s+{CAP}",
        "lives_in",
        0.85,
        tense="plan",
        plan_verb="move to",
    ),
    rule(
        rf"{S0}(?:'ve|{_BE}|\s+have)?{_ADV}\s*(?:left|leaving|moved\s+out\s+of|moved\s+away\s+from)\s+{CAP}",
        "lives_in",
        0.8,
        polarity="negate",
    ),
    rule(
        rf"{S}{_BE}{_ADV}\s+(?:in|at)\s+{CAP}\s+(?:this\s+week|today|right\s+now|at\s+the\s+moment|"
        r"for\s+(?:work|a\s+conference|the\s+week))",
        "located_in",
        0.8,
    ),
    rule(
        rf"{S0}(?:'ve|\s+have)?\s*(?i:got|rented|found|bought)\s+(?:a|an|our|my)\s+(?:[\w-]+\s+)?"
        rf"(?:flat|place|apartment|house|room)\s+in\s+{CAP}",
        "lives_in",
        0.75,
    ),
    rule(
        rf"{S}{_BE}\s+working\s+from\s+(?:my|our|his|her)\s+(?:flat|place|home|house|apartment)\s+"
        rf"in\s+{CAP}",
        "lives_in",
        0.75,
    ),
    rule(
        rf"{_CLAUSE_START}(?P<implicit>)(?i:still)\s+(?:in|on\s+(?:my|our)\s+[\w' ]+?\s+in)\s+{CAP}",
        "lives_in",
        0.7,
    ),
    # -------------------------------------------------------------- work and study
    rule(
        rf"{S}(?:{_BE})?{_ADV}\s+(?:started|starting|doing|studying)\s+(?:an?\s+|my\s+)?(?:MSc|MA|BA|BSc|PhD|"
        rf"degree|masters?|master's|bachelor's|course)\b[\w' ]*?\s+at\s+{V}",
        "studies_at",
    ),
    rule(rf"{S}{_ADV}\s+stud(?:y|ies|ying)\s+(?:[\w]+\s+){{0,2}}?(?:at|in)\s+{CAP}", "studies_at"),
    rule(rf"{S0}{_ADV}\s*(?i:graduated)\s+from\s+{CAP}", "studies_at", 0.85, polarity="negate"),
    rule(
        rf"{S}{_BE}\s+(?:not|no\s+longer)\s+at\s+{CAP}(?=[^.]*graduat)",
        "studies_at",
        0.8,
        polarity="negate",
    ),
    rule(
        rf"{S}\s+(?:no longer|don't|do not|doesn't|does not)\s+work\s+(?:at|for)\s+{CAP}",
        "works_at",
        polarity="negate",
    ),
    rule(
        rf"{S}{_BE}\s+(?:not|no\s+longer)\s+at\s+{CAP}\s+any\s*more(?![^.]*graduat)",
        "works_at",
        0.8,
        polarity="negate",
    ),
    rule(rf"{S0}\s*(?i:quit|resigned\s+from)\s+{CAP}", "works_at", 0.8, polarity="negate"),
    rule(
        rf"{S}\s+(?:quit|resigned\s+from)\s+my\s+job\b(?P<value>)",
        "works_at",
        0.8,
        polarity="negate",
    ),
    rule(
        rf"{S}{_ADV}\s+work(?:s|ed|ing)?{_ADV}(?:\s+(?:from\s+home|remotely|full-time|part-time))?"
        rf"\s+(?:at|for)\s+{V}",
        "works_at",
    ),
    rule(rf"{S}{_BE}{_ADV}\s+(?:working)\s+(?:at|for)\s+{V}", "works_at"),
    # an employer described, then named: "I work at a startup, Acme Labs"
    rule(
        rf"{S}(?:{_BE})?{_ADV}\s+(?:work|works|working)\s+(?:at|for|in)\s+an?\s+"
        rf"(?:[\w-]+\s+){{0,3}}?{_PLACE_OF_WORK},\s+{_NOT_NAME}{CAP}(?=\s*(?:[,.;!]|$))",
        "works_at",
        0.85,
        names=True,
    ),
    rule(
        rf"{S0}(?:'ve|\s+have|\s+has)?{_ADV}\s*(?i:joined|started\s+(?:a\s+new\s+job\s+|work\s+|"
        rf"working\s+)?at|got\s+a\s+(?:new\s+)?job\s+at)\s+{CAP}",
        "works_at",
        0.8,
    ),
    rule(rf"{S}{_BE}{_ADV}\s+(?:an?|the)\s+(?:new\s+)?{_JOB}\s+at\s+{CAP}", "works_at", 0.85),
    rule(
        rf"{S}(?:{_BE}|'ve\s+been|\s+have\s+been|\s+has\s+been){_ADV}\s+on\s+(?:the|their|our)\s+"
        rf"[\w ]+?\s+team\s+at\s+{CAP}",
        "works_at",
        0.85,
    ),
    rule(
        rf"{S}{_BE}\s+(?:starting\s+(?:at|with)|joining)\s+{V}",
        "works_at",
        0.8,
        tense="plan",
        plan_verb="start at",
    ),
    rule(
        rf"{S}(?:{_BE}|'ve\s+been|\s+have\s+been)\b[^.]*?\bteam\s+at\s+{CAP}",
        "works_at",
        0.75,
    ),
    rule(
        rf"{_CLAUSE_START}(?P<implicit>)(?i:final|first|second|third)\s+year\s+(?:of\s+[\w ]+?\s+)?"
        rf"at\s+{CAP}",
        "studies_at",
        0.75,
    ),
    rule(_OFFER, "works_at", 0.75),  # a job offer taken up is the next employer
    # -------------------------------------------------------------- job title
    rule(
        rf"{S}{_BE}\s+(?:not|no\s+longer)\s+(?:an?|the)\s+(?P<value>{_JOB})",
        "role",
        0.85,
        polarity="negate",
    ),
    rule(rf"{S}{_BE}{_ADV}\s+(?:an?|the|our|their|his|her)\s+(?:new\s+)?(?P<value>{_JOB})", "role"),
    # joining, said as a feeling: "Excited to be here as the new junior designer"
    rule(
        rf"{S0}(?:{_BE}\s+)?(?:(?i:so|really|very)\s+)?(?i:excited|happy|glad|thrilled|proud|"
        rf"delighted)\s+to\s+(?:be\s+)?(?:here|on\s+board|aboard|join\w*|start\w*)\b[^.]{{0,30}}?"
        rf"\bas\s+(?:an?\s+|the\s+|your\s+)?(?:new\s+)?(?P<value>{_JOB})",
        "role",
        0.8,
    ),
    rule(
        rf"{S0}(?:'ve|\s+have|\s+has|\s+got|\s+was|\s+been)*\s*promoted\s+to\s+(?:an?\s+|the\s+)?"
        rf"(?P<value>{_JOB})",
        "role",
    ),
    rule(
        rf"{S}\b[^.]{{0,60}}?\b(?:join\w*|hired|start\w*|work\w*|employed|takes?\s+over|took\s+over|"
        rf"team|here)\b[^.]{{0,30}}?\bas\s+(?:an?\s+|the\s+)?(?:new\s+)?(?P<value>{_JOB})",
        "role",
        0.8,
    ),
    rule(
        rf"{S}(?:{_BE}\s+(?:now\s+)?leading|\s+lead|\s+leads)\s+the\s+(?P<value>[\w-]+(?:\s+[\w-]+)?)"
        rf"\s+team\b",
        "role",
        0.8,
        shape=lambda v: f"{v} team lead",
    ),
    # -------------------------------------------------------------- partner and family
    rule(
        rf"(?P<value>{NAME})\s+is\s+(?P<subj>\b[Mm]y|\b{NAME}'s)\s+(?:new\s+)?(?:{_PARTNER})\b",
        "partner",
    ),
    rule(
        rf"(?P<subj>\b[Mm]y|\b{NAME}'s)\s+(?:new\s+)?(?:{_PARTNER})(?:'s|\s+is)\s+(?:called\s+|named\s+)?"
        rf"(?P<value>{NAME})",
        "partner",
    ),
    rule(rf"(?P<subj>\b[Mm]y)\s+(?:{_PARTNER}),?\s+(?P<value>{NAME})\b", "partner"),
    rule(rf"{S}(?:\s+got|{_BE})\s+(?:married|engaged)\s+to\s+(?P<value>{NAME})", "partner"),
    rule(
        rf"(?P<value>{NAME})\s+and\s+(?P<subj>I)\s+(?:are|'re)\s+(?:now\s+)?(?:official|together|"
        r"engaged|married|dating)",
        "partner",
        0.85,
    ),
    rule(rf"{S}{_BE}\s+(?:dating|seeing)\s+(?P<value>{NAME})", "partner", 0.85),
    rule(
        rf"(?P<value>{NAME})\s+and\s+(?P<subj>I)\s+(?:broke|split)\s+up",
        "partner",
        polarity="negate",
    ),
    rule(
        rf"{S}\s+(?:broke\s+up|split\s+up)\s+with\s+(?P<value>{NAME})", "partner", polarity="negate"
    ),
    rule(
        rf"(?P<subj>\b[Mm]y)\s+(?P<kind>{_REL})(?:\s+is\s+called|\s+is\s+named|,)?\s+(?P<value>{NAME})\b",
        "family.",
        kinds=RELATIONS_EN,
    ),
    # -------------------------------------------------------------- pets
    rule(
        rf"{S0}(?:'ve|\s+have|\s+has|\s+got|\s+adopted|\s+rescued|\s+own|\s+owns)*\s*"
        rf"(?:have|has|got|adopted|rescued|own|owns)?\s*(?:an?|two|three)\s+(?:[\w-]+\s+){{0,2}}?"
        rf"(?:{_ANIMAL})s?\s+(?:called|named)\s+(?P<value>[A-Z][a-z]+)",
        "pet",
    ),
    rule(
        rf"(?P<subj>\b[Mm]y|\b{NAME}'s)\s+(?:{_ANIMAL})\s+(?:is\s+called\s+|is\s+named\s+|,\s*)?"
        rf"(?P<value>[A-Z][a-z]+)\b",
        "pet",
    ),
    rule(rf"(?P<value>[A-Z][a-z]+),\s+(?P<subj>my)\s+(?:{_ANIMAL})\b", "pet"),
    rule(
        rf"(?:^|(?<=\s))(?P<value>{NAME})\s+(?:died|passed\s+away|ran\s+away)\b",
        "pet",
        0.7,
        polarity="negate",
    ),
    # -------------------------------------------------------------- likes, dislikes, favourites
    rule(
        rf"(?P<subj>\b[Mm]y|\b{NAME}'s)\s+(?:all-time\s+)?favou?rite\s+(?P<kind>\w+)\s+is\s+{V}",
        "favourite.",
        kinds=KINDS,
        shape=clip,
    ),
    rule(
        rf"(?:^|(?<=[,:;]\s))(?P<value>[\w' -]{{1,30}}?)\s+is\s+(?P<subj>my|{NAME}'s)\s+"
        rf"(?:all-time\s+)?favou?rite\s+(?P<kind>\w+)",
        "favourite.",
        kinds=KINDS,
    ),
    rule(
        rf"{S}(?:\s+really|\s+also|\s+absolutely)?\s+(?:hate|hates|dislike|dislikes|detest|loathe|"
        rf"can't\s+stand|cannot\s+stand|don't\s+like|doesn't\s+like)\s+{V}",
        "dislikes",
        shape=preference,
    ),
    rule(
        rf"{_FIRST}(?:\s+really|\s+also|\s+absolutely)?\s+(?:love|like|enjoy|adore)\s+"
        rf"(?!to\b|it\b|that\b|this\b){V}",
        "likes",
        0.85,
        shape=preference,
    ),
    rule(
        rf"{_THIRD}(?:\s+really|\s+also|\s+absolutely)?\s+(?:loves|likes|enjoys|adores)\s+"
        rf"(?!to\b|it\b|that\b|this\b){V}",
        "likes",
        0.85,
        shape=preference,
    ),
    rule(rf"{S}{_BE}\s+(?:really\s+)?into\s+{V}", "likes", 0.8, shape=preference),
    # -------------------------------------------------------------- possessions
    rule(
        rf"{S0}\s*(?i:sold|got\s+rid\s+of|scrapped|gave\s+away)\s+(?:the|my|our|a|an)?\s*(?:old\s+)?"
        rf"{CAP}",
        "owns",
        0.85,
        polarity="negate",
    ),
    rule(
        rf"{S0}(?:'ve|\s+have|\s+has)?{_ADV}\s*(?i:bought|purchased|picked\s+up)\s+(?:an?\s+|the\s+)?"
        rf"(?:new\s+|used\s+|second-hand\s+)?{CAP}",
        "owns",
        0.85,
    ),
    rule(
        rf"{S}\s+(?:have|has|own|owns|drive|drives)\s+an?\s+(?P<value>(?:[\w-]+\s+){{0,3}}?"
        rf"(?:car|bike|motorbike|scooter|van|piano|guitar|camera|boat|[A-Z][\w-]+\s+\w*bike))\b",
        "owns",
        0.8,
    ),
    # -------------------------------------------------------------- health and diet
    rule(
        rf"{S}{_BE}{_ADV}\s+(?:very\s+|severely\s+)?allergic\s+to\s+{V}", "allergic_to", shape=clip
    ),
    rule(rf"{S}{_BE}\s+(?P<value>lactose|gluten)\s+intolerant", "allergic_to", 0.85),
    rule(
        rf"{S}(?:\s+have|\s+has|'ve\s+got|\s+got)\s+(?:an?\s+)?(?P<value>(?:[\w-]+\s+){{0,2}}?"
        r"(?:asthma|diabetes|migraines?|arthritis|eczema|epilepsy|gastritis|cancer|covid|"
        r"back pain|injury|depression|anxiety|adhd|high blood pressure))\b",
        "health",
        0.85,
    ),
    rule(
        rf"{S0}\s*(?i:broke|sprained|injured|hurt)\s+(?:my|his|her)\s+(?P<value>\w+)",
        "health",
        0.8,
        shape=lambda v: f"injured {v}",
    ),
    rule(rf"{S}{_BE}{_ADV}\s+(?:fully\s+)?(?P<value>{_DIET})\b", "diet"),
    rule(
        rf"{S0}(?:'ve|\s+have|\s+has)?{_ADV}\s*(?i:gone|went|turned)\s+(?:fully\s+)?(?P<value>{_DIET})\b",
        "diet",
    ),
    rule(
        rf"{S}\s+(?:don't|do not|doesn't|does not|no longer|can't|cannot)\s+eat\s+{V}",
        "diet",
        0.85,
        shape=no,
    ),
    # -------------------------------------------------------------- plans with a date
    rule(
        rf"{S}{_BE}\s+(?P<value>(?:flying|going|travelling|traveling|driving|heading)\s+to\s+"
        rf"[A-Z][\w-]*)",
        "plan",
        0.85,
        tense="plan",
    ),
    rule(
        rf"{S}{_BE}\s+(?P<value>going\s+on\s+(?:[\w-]+\s+)?(?:leave|holiday|vacation|honeymoon|a\s+trip))",
        "plan",
        0.85,
        tense="plan",
        shape=str.strip,
    ),
    rule(
        r"(?:^|(?<=[,:;]\s)|(?<=\bso\s))(?:(?P<subj>[Mm]y|[Oo]ur)\s+|(?:[Tt]he|[Oo]ur)\s+(?P<implicit>))?"
        r"(?!(?i:so|and|but|then|also|i|he|she|we|they|it|you)\b)(?P<value>[\w' -]{1,25}?)\s+(?:is\s+|has\s+been\s+)?(?:booked|scheduled|planned|set|"
        r"postponed|moves|rescheduled|pushed\s+back)\s+(?:for|to)\s+(?=(?:[A-Z][a-z]+\s+)?\d)",
        "plan",
        0.7,
        tense="plan",
    ),
    rule(
        r"(?P<subj>\b[Mm]y|\b[Oo]ur)\s+(?P<value>[\w ]{1,20}?\s+(?:launches|opens|starts|is due))\s+"
        r"(?:on|in|next)\b",
        "plan",
        0.8,
        tense="plan",
    ),
    # -------------------------------------------------------------- contact handles
    rule(
        rf"(?P<subj>\b[Mm]y|\b{NAME}'s)\s+(?:new\s+)?(?:mobile\s+|phone\s+|cell\s+)?(?:number|mobile|"
        r"phone|cell)(?:\s+is|:)\s+(?P<value>\+?\d[\d -]{6,}\d)",
        "contact.phone",
    ),
    rule(
        r"(?:^|(?<=[.!,:]\s))(?P<implicit>)[Nn]ew\s+(?:mobile|number|phone)\s*:\s*"
        r"(?P<value>\+?\d[\d -]{6,}\d)",
        "contact.phone",
        0.85,
    ),
    rule(
        rf"(?P<subj>\b[Mm]y|\b{NAME}'s)\s+(?:old\s+)?(?:number|mobile|phone)\s+(?:doesn't|does not|won't)"
        r"\s+work(?P<value>)",
        "contact.phone",
        0.85,
        polarity="negate",
    ),
    rule(
        r"(?:\b(?P<subj>[Mm]y)\b|\bme\b)[^.!?]*?(?P<value>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)",
        "contact.email",
    ),
    rule(
        rf"(?P<subj>\b[Mm]y|\b{NAME}'s)\s+(?P<kind>{_APP})(?:\s+(?:handle|username|id|account))?"
        r"(?:\s+is|:)\s+(?P<value>@?[\w.]+\w)",
        "contact.",
        kinds=_APPS,
        flags=I_,
    ),
    rule(
        rf"(?:changed|updated|switched)\s+(?P<subj>my)\s+(?P<kind>{_APP})(?:\s+(?:handle|username|"
        r"account|id))?\s+to\s+(?P<value>@?[\w.]+\w)",
        "contact.",
        kinds=_APPS,
        flags=I_,
    ),
    rule(
        rf"(?:deleted|closed|gave\s+up)\s+(?P<subj>my)\s+(?:old\s+)?(?P<kind>{_APP})\s+(?:account|handle)"
        r"\s+(?P<value>@[\w.]+\w)",
        "contact.",
        kinds=_APPS,
        polarity="negate",
        flags=I_,
    ),
]


# "I adopted a cat from the shelter! Her name is Miso": the name comes in the next sentence
_GOT_ANIMAL = lazy_compile(
    rf"\b(?:I|[Ww]e)(?:'ve|\s+have)?\s+(?:just\s+)?(?:adopted|rescued|got|bought)\s+"
    rf"(?:an?|our|my)\s+(?:[\w-]+\s+){{0,2}}?(?P<animal>{_ANIMAL})\b"
)
_ITS_NAME = lazy_compile(
    r"^(?:(?:Her|His|Its|Their)\s+name(?:'s|\s+is)|(?:She|He|It)(?:'s|\s+is)\s+called)\s+"
    r"(?P<name>[A-Z][a-z]+)\b"
)


def named_next(sentences: list[str]) -> list[str]:
    """The sentences, with "<I> have a <animal> called <Name>" added after a sentence that
    names the animal just said to be got ("... adopted a cat ...! Her name is Miso")."""
    out: list[str] = []
    for i, sentence in enumerate(sentences):
        out.append(sentence)
        # only when the first asserts it ("If I adopted a cat. Her name is ..." does not)
        got = _GOT_ANIMAL.search(sentence)  # the cheap test first: the check is costlier
        got = got if got and not_a_statement(sentence) is None else None
        named = _ITS_NAME.match(sentences[i + 1]) if got and i + 1 < len(sentences) else None
        if got and named:
            out.append(f"I have a {got.group('animal')} called {named.group('name')}")
    return out
