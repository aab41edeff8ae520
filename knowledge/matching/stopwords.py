"""Stop words per language: function words that carry no intent, written without accents (post-normalisation).

Kept out on purpose: negations (pas, not, niet), yes/no words (oui, non, yes, no, ja, nee),
question words (comment, why, waarom...) and the particles that turn a verb around (on / off, up / down,
in / out; aan / uit / in: "turn off", "top up", "log out", "zet ... uit", "schakel ... in"), because they
tell intents apart in short inputs and decision-tree answers.
"""

from __future__ import annotations

_FR = """
a au aux avec ce ces cet cette c ca d de des du dans en et es est etre il ils elle elles je j l la le les
leur leurs lui ma mes me m moi mon n ne nos notre nous on ou par pour qu que qui s sa se ses son sur
ta te tes toi ton tu t un une vos votre vous y sont suis ai as avons avez ont cela ceci celui celle
donc or ni car mais si tres plus bien aussi alors puis deja estce quelle quel quels quelles
"""

_EN = """
a an the and or but if of at by for with about to from into onto over under
i me my mine myself we us our ours you your yours he him his she her hers it its they them their
theirs this that these those am is are was were be been being have has had having do does did doing
would should could will shall can may might must just so too very s t there here then than also
"""

_NL = """
de het een en of maar als dat die dit deze van voor met op bij naar om over onder tot
door ik me mij mijn je jij jou jouw u uw hij hem zijn zij ze haar wij we ons onze jullie hun hen
is ben bent was waren wordt worden werd zal zullen kan kunnen moet moeten heb hebt heeft hebben had
er hier daar dan toch ook al nog wel zo te s t
"""

STOP_WORDS: dict[str, frozenset[str]] = {
    "fr": frozenset(_FR.split()),
    "en": frozenset(_EN.split()),
    "nl": frozenset(_NL.split()),
}


def stop_words(language: str) -> frozenset[str]:
    """The stop words of `language` (empty for a language without a list)."""
    return STOP_WORDS.get(language[:2].lower(), frozenset())


# The particles kept out of the stop words (see above): they tell two items apart, but before the end of an
# input they are mostly prepositions that name no subject ("a question on my card" is about the card), which is
# what topic.py asks of a word.
PARTICLES: dict[str, frozenset[str]] = {
    "en": frozenset(["in", "on", "off", "up", "down", "out"]),
    "nl": frozenset(["aan", "uit", "in"]),
}


def particles(language: str) -> frozenset[str]:
    """The verb particles of `language` that are not stop words (empty for a language without any)."""
    return PARTICLES.get(language[:2].lower(), frozenset())


# Words that open or frame a question without saying what it is about: greetings, politeness, "I have a
# question / a problem about", "I need help / information". Not stop words (an item may be about "help"),
# only what topic.py sets aside to see whether an input names a subject rather than a question.
_FR_FILLERS = """
bonjour bonsoir salut coucou hello allo merci svp stp sil plait madame monsieur question questions probleme
problemes souci soucis aide aider besoin renseignement renseignements information informations info infos
demande demander savoir voudrais veux voulais aimerais souhaite souhaiterais concernant propos sujet avoir
"""
_EN_FILLERS = """
hello hi hey hiya good morning afternoon evening thanks thank please question questions problem problems issue
issues help need info information know want wanted like regarding concerning sir madam ask asking got
"""
_NL_FILLERS = """
hallo hoi hey goedemorgen goedemiddag goedenavond dag beste bedankt dank alstublieft alsjeblieft graag vraag
vragen vraagje probleem problemen hulp helpen informatie info weten wil wilde willen betreft meneer mevrouw
"""

FILLER_WORDS: dict[str, frozenset[str]] = {
    "fr": frozenset(_FR_FILLERS.split()),
    "en": frozenset(_EN_FILLERS.split()),
    "nl": frozenset(_NL_FILLERS.split()),
}


def filler_words(language: str) -> frozenset[str]:
    """The filler words of `language` (empty for a language without a list)."""
    return FILLER_WORDS.get(language[:2].lower(), frozenset())
