"""Global sentences: the bot's own, else a sensible default in its language."""

from .models import GlobalSentence

K = GlobalSentence.Kind

DEFAULTS: dict[str, dict[str, str]] = {
    "fr": {
        K.WELCOME: "Bonjour ! Que puis-je faire pour vous ?",
        K.MISUNDERSTOOD: "Je n'ai pas compris votre question. Pouvez-vous la reformuler ?",
        K.TOO_MANY_MISUNDERSTOOD: "Je n'arrive pas à vous comprendre. Essayez une question plus courte, "
        "ou contactez-nous directement.",
        K.EMPTY_INPUT: "Votre message est vide. Quelle est votre question ?",
        K.TOO_LONG_INPUT: "Votre question est trop longue pour moi. Pouvez-vous la raccourcir ?",
        K.REWORD_INTRO: "Je ne suis pas sûr d'avoir compris. Vouliez-vous dire :",
        K.FEEDBACK_CHOICE_INTRODUCTION: "Pourquoi cette réponse ne vous convient-elle pas ?",
        K.FEEDBACK_CHOICE0: "Elle ne répond pas à ma question",
        K.FEEDBACK_CHOICE1: "Elle n'est pas claire",
        K.FEEDBACK_CHOICE2: "Elle est incomplète",
        K.FEEDBACK_COMMENT_LABEL: "Un commentaire ?",
        K.FEEDBACK_COMMENT_PLACEHOLDER: "Votre commentaire",
        K.FEEDBACK_COMMENT_SEND: "Envoyer",
        K.FEEDBACK_COMMENT_END: "Merci pour votre retour !",
        K.LINK_CLICKED: "Voici le lien demandé.",
        K.LINK_NEW_TAB: "Le lien s'est ouvert dans un nouvel onglet.",
    },
    "en": {
        K.WELCOME: "Hello! How can I help you?",
        K.MISUNDERSTOOD: "I did not understand your question. Could you rephrase it?",
        K.TOO_MANY_MISUNDERSTOOD: "I can't seem to understand you. Try a shorter question, or contact us directly.",
        K.EMPTY_INPUT: "Your message is empty. What is your question?",
        K.TOO_LONG_INPUT: "Your question is too long for me. Could you shorten it?",
        K.REWORD_INTRO: "I am not sure I understood. Did you mean:",
        K.FEEDBACK_CHOICE_INTRODUCTION: "Why doesn't this answer suit you?",
        K.FEEDBACK_CHOICE0: "It doesn't answer my question",
        K.FEEDBACK_CHOICE1: "It isn't clear",
        K.FEEDBACK_CHOICE2: "It is incomplete",
        K.FEEDBACK_COMMENT_LABEL: "Any comment?",
        K.FEEDBACK_COMMENT_PLACEHOLDER: "Your comment",
        K.FEEDBACK_COMMENT_SEND: "Send",
        K.FEEDBACK_COMMENT_END: "Thank you for your feedback!",
        K.LINK_CLICKED: "Here is the link you asked for.",
        K.LINK_NEW_TAB: "The link opened in a new tab.",
    },
    "nl": {
        K.WELCOME: "Hallo! Hoe kan ik u helpen?",
        K.MISUNDERSTOOD: "Ik heb uw vraag niet begrepen. Kunt u die anders formuleren?",
        K.TOO_MANY_MISUNDERSTOOD: "Ik begrijp u niet goed. Probeer een kortere vraag, of neem rechtstreeks contact op.",
        K.EMPTY_INPUT: "Uw bericht is leeg. Wat is uw vraag?",
        K.TOO_LONG_INPUT: "Uw vraag is te lang voor mij. Kunt u die inkorten?",
        K.REWORD_INTRO: "Ik weet niet zeker of ik het begrepen heb. Bedoelde u:",
        K.FEEDBACK_CHOICE_INTRODUCTION: "Waarom past dit antwoord niet?",
        K.FEEDBACK_CHOICE0: "Het beantwoordt mijn vraag niet",
        K.FEEDBACK_CHOICE1: "Het is niet duidelijk",
        K.FEEDBACK_CHOICE2: "Het is onvolledig",
        K.FEEDBACK_COMMENT_LABEL: "Opmerkingen?",
        K.FEEDBACK_COMMENT_PLACEHOLDER: "Uw opmerking",
        K.FEEDBACK_COMMENT_SEND: "Versturen",
        K.FEEDBACK_COMMENT_END: "Bedankt voor uw feedback!",
        K.LINK_CLICKED: "Hier is de gevraagde link.",
        K.LINK_NEW_TAB: "De link is in een nieuw tabblad geopend.",
    },
}

FEEDBACK_WORDING = {
    "choiceIntroduction": K.FEEDBACK_CHOICE_INTRODUCTION,
    "choice0": K.FEEDBACK_CHOICE0,
    "choice1": K.FEEDBACK_CHOICE1,
    "choice2": K.FEEDBACK_CHOICE2,
    "commentLabel": K.FEEDBACK_COMMENT_LABEL,
    "commentPlaceholder": K.FEEDBACK_COMMENT_PLACEHOLDER,
    "commentSend": K.FEEDBACK_COMMENT_SEND,
    "commentEnd": K.FEEDBACK_COMMENT_END,
}


def global_sentence(sentences: dict[tuple[str, str], str], language: str, kind: str) -> str:
    """The bot's sentence in that language, else the default in that language, else in English."""
    found = sentences.get((language, kind))
    if found:
        return found
    return DEFAULTS.get(language, DEFAULTS["en"]).get(kind) or DEFAULTS["en"][kind]


def feedback_wording(sentences: dict[tuple[str, str], str], language: str) -> dict[str, str]:
    return {key: global_sentence(sentences, language, kind) for key, kind in FEEDBACK_WORDING.items()}
