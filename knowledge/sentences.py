"""Global sentences: the bot's own, else a sensible default in its language."""

import re

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
        K.LIVECHAT_NO_OPERATOR: "Aucun conseiller n'est disponible pour le moment. Je reste à votre disposition, "
        "ou appelez-nous au 01 23 45 67 89.",
        K.LIVECHAT_CONNECTED: "Vous êtes en relation avec {operator}.",
        K.LIVECHAT_JOINED: "{operator} a rejoint la conversation.",
        K.LIVECHAT_QUEUED: "Tous nos conseillers sont occupés. Vous êtes en position {position} dans la file "
        "d'attente (environ {minutes} min).",
        K.LIVECHAT_LEFT_QUEUE: "Vous avez quitté la file d'attente. Je reste à votre disposition.",
        K.LIVECHAT_TRANSFERRED: "Votre conversation est transférée à {operator}.",
        K.LIVECHAT_OPERATOR_DISCONNECTED: "Votre conseiller a été déconnecté. Nous cherchons un autre conseiller.",
        K.LIVECHAT_ALMOST_TIMED_OUT: "Êtes-vous toujours là ? Sans réponse, la conversation sera fermée dans "
        "{seconds} secondes.",
        K.LIVECHAT_AUTO_CLOSE: "La conversation avec le conseiller est fermée faute de réponse. Je reste à votre "
        "disposition.",
        K.LIVECHAT_END: "{operator} a terminé la conversation. Merci et à bientôt !",
        K.LIVECHAT_OPERATOR: "Conseiller",
        K.SLOT_INVALID: "Je n'ai pas reconnu cette valeur.",
        K.SLOT_LEAVE_CONFIRM: "Voulez-vous arrêter de répondre à mes questions pour passer à autre chose ?",
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
        K.LIVECHAT_NO_OPERATOR: "No advisor is available right now. I am still here to help, or call us on "
        "+33 1 23 45 67 89.",
        K.LIVECHAT_CONNECTED: "You are now talking to {operator}.",
        K.LIVECHAT_JOINED: "{operator} joined the conversation.",
        K.LIVECHAT_QUEUED: "All our advisors are busy. You are number {position} in the queue (about {minutes} min).",
        K.LIVECHAT_LEFT_QUEUE: "You left the queue. I am still here to help.",
        K.LIVECHAT_TRANSFERRED: "Your conversation is transferred to {operator}.",
        K.LIVECHAT_OPERATOR_DISCONNECTED: "Your advisor was disconnected. We are looking for another advisor.",
        K.LIVECHAT_ALMOST_TIMED_OUT: "Are you still there? Without an answer the conversation closes in "
        "{seconds} seconds.",
        K.LIVECHAT_AUTO_CLOSE: "The conversation with the advisor was closed for lack of an answer. "
        "I am still here to help.",
        K.LIVECHAT_END: "{operator} ended the conversation. Thank you, and see you soon!",
        K.LIVECHAT_OPERATOR: "Advisor",
        K.SLOT_INVALID: "I did not recognise that value.",
        K.SLOT_LEAVE_CONFIRM: "Do you want to stop answering my questions and move on to something else?",
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
        K.LIVECHAT_NO_OPERATOR: "Er is op dit moment geen medewerker beschikbaar. Ik help u graag verder.",
        K.LIVECHAT_CONNECTED: "U spreekt nu met {operator}.",
        K.LIVECHAT_JOINED: "{operator} neemt deel aan het gesprek.",
        K.LIVECHAT_QUEUED: "Al onze medewerkers zijn bezet. U bent nummer {position} in de wachtrij "
        "(ongeveer {minutes} min).",
        K.LIVECHAT_LEFT_QUEUE: "U hebt de wachtrij verlaten. Ik help u graag verder.",
        K.LIVECHAT_TRANSFERRED: "Uw gesprek wordt overgedragen aan {operator}.",
        K.LIVECHAT_OPERATOR_DISCONNECTED: "Uw medewerker is de verbinding kwijt. We zoeken een andere medewerker.",
        K.LIVECHAT_ALMOST_TIMED_OUT: "Bent u er nog? Zonder antwoord wordt het gesprek over {seconds} "
        "seconden gesloten.",
        K.LIVECHAT_AUTO_CLOSE: "Het gesprek met de medewerker is gesloten omdat er geen antwoord kwam.",
        K.LIVECHAT_END: "{operator} heeft het gesprek beëindigd. Bedankt en tot ziens!",
        K.LIVECHAT_OPERATOR: "Medewerker",
        K.SLOT_INVALID: "Ik heb die waarde niet herkend.",
        K.SLOT_LEAVE_CONFIRM: "Wilt u stoppen met mijn vragen en iets anders doen?",
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


PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(text: str, **values) -> str:
    """A sentence with its {placeholders} filled; an unknown placeholder stays as written."""
    return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), text)


def feedback_wording(sentences: dict[tuple[str, str], str], language: str) -> dict[str, str]:
    return {key: global_sentence(sentences, language, kind) for key, kind in FEEDBACK_WORDING.items()}
