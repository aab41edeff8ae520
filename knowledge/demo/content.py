"""The demo bot's knowledge: Clara, the assistant of an imaginary bank, in French and English.

Each item: a tag, formulations per language (the first is the question shown to users; a leading
"~" marks a formulation that is matched but never offered as a rewording or a suggestion), an answer
per language, optional answers per consultation space, feedback, and decision-tree children.
"""

import base64
import json

from bots.models import DEMO_BOT_UUID
from knowledge.links import reword_link

BOT_UUID = DEMO_BOT_UUID
BOT_NAME = "Clara — Banque Exemple"
SPACES = ["Defaut", "Pro"]

GROUPS = [
    ("Produits", "carte", ["carte", "carte bancaire", "carte bleue", "cb", "{carte de paiement}"]),
    ("Produits", "carte de paiement", ["carte de crédit", "carte de débit", "carte visa", "mastercard"]),
    ("Products", "card", ["card", "bank card", "debit card", "credit card", "visa card"]),
    ("Banque", "distributeur", ["distributeur", "distributeur automatique", "dab", "guichet automatique"]),
    ("Banque", "cash machine", ["cash machine", "atm", "cashpoint", "cash dispenser"]),
    ("Communication", "mail", ["mail", "e-mail", "courriel", "message", "sms", "email", "text message"]),
    ("Social", "Non", ["non", "non merci", "pas du tout", "no", "no thanks"]),
    ("Social", "Oui", ["oui", "oui merci", "tout à fait", "yes", "yes please"]),
]

WELCOME = {
    "fr": "Bonjour, je suis <b>Clara</b>, l'assistante de la Banque Exemple. Posez-moi une question sur "
    "vos cartes, vos virements, votre compte ou nos agences.",
    "en": "Hello, I am <b>Clara</b>, the assistant of Banque Exemple. Ask me about your cards, transfers, "
    "account or our branches.",
}


def _link(question: str) -> str:
    return reword_link(question, "redirection_knowledge")


ITEMS = [
    {
        "label": "Greeting",
        "tag": "Social",
        "fr": (["Bonjour", "~salut", "~bonsoir", "~coucou"], "Bonjour ! Que puis-je faire pour vous ?"),
        "en": (["Hello", "~hi", "~good morning", "~hey there"], "Hello! What can I do for you?"),
    },
    {
        "label": "Thanks",
        "tag": "Social",
        "fr": (["Merci", "~merci beaucoup", "~c'est gentil merci"], "Avec plaisir ! Autre chose ?"),
        "en": (["Thank you", "~thanks a lot", "~thanks"], "You are welcome! Anything else?"),
    },
    {
        "label": "Goodbye",
        "tag": "Social",
        "fr": (["Au revoir", "~à bientôt", "~bonne journée"], "Au revoir et à bientôt à la Banque Exemple !"),
        "en": (["Goodbye", "~bye", "~see you later"], "Goodbye, see you soon at Banque Exemple!"),
    },
    {
        "label": "What the assistant can do",
        "tag": "Social",
        "fr": (
            ["Que sais-tu faire ?", "Comment peux-tu m'aider ?", "~aide"],
            "Je réponds aux questions sur vos <b>cartes</b>, vos <b>virements</b>, votre <b>compte</b>, nos "
            "<b>agences</b> et la <b>sécurité</b>. Essayez par exemple : « J'ai perdu ma carte ».",
        ),
        "en": (
            ["What can you do?", "How can you help me?", "~help"],
            "I answer questions about your <b>cards</b>, <b>transfers</b>, <b>account</b>, our <b>branches</b> "
            "and <b>security</b>. Try for example: “I lost my card”.",
        ),
    },
    {
        "label": "Who is Clara",
        "tag": "Social",
        "fr": (
            ["Qui es-tu ?", "Es-tu un robot ?", "~tu es humain"],
            "Je suis Clara, un assistant virtuel. Je peux aussi vous mettre en relation avec un conseiller.",
        ),
        "en": (
            ["Who are you?", "Are you a robot?", "~are you human"],
            "I am Clara, a virtual assistant. I can also put you in touch with an advisor.",
        ),
    },
    {
        "label": "Opening hours",
        "featured": True,
        "tag": "Agences",
        "fr": (
            [
                "Quels sont vos horaires d'ouverture ?",
                "À quelle heure ouvre l'agence ?",
                "L'agence est-elle ouverte le samedi ?",
                "~horaires agence",
            ],
            "Nos agences sont ouvertes du <b>mardi au samedi, de 9 h à 17 h 30</b>.",
        ),
        "en": (
            [
                "What are your opening hours?",
                "When does the branch open?",
                "Is the branch open on Saturday?",
                "~branch hours",
            ],
            "Our branches are open <b>Tuesday to Saturday, 9 am to 5:30 pm</b>.",
        ),
        "spaces": {
            "Pro": {
                "fr": "Les conseillers professionnels vous reçoivent <b>du lundi au vendredi, de 8 h à 19 h</b>, sur rendez-vous.",
                "en": "Business advisors see you <b>Monday to Friday, 8 am to 7 pm</b>, by appointment.",
            }
        },
        "feedback": True,
    },
    {
        "label": "Find a branch",
        "tag": "Agences",
        "fr": (
            ["Où se trouve l'agence la plus proche ?", "Trouver une agence", "~adresse de l'agence"],
            'Toutes nos agences sont sur <a href="https://example.org/agences" target="_blank">la carte des agences</a>.'
            # A link to another item (a click sends extraParameters redirection_knowledge).
            + " Voir aussi : "
            + _link("Quels sont vos horaires d'ouverture ?"),
        ),
        "en": (
            ["Where is the nearest branch?", "Find a branch", "~branch address"],
            'All our branches are on <a href="https://example.org/branches" target="_blank">the branch map</a>.'
            + " See also: "
            + _link("What are your opening hours?"),
        ),
    },
    {
        "label": "Contact by phone",
        "tag": "Agences",
        "fr": (
            ["Comment vous contacter par téléphone ?", "Quel est votre numéro de téléphone ?", "~appeler la banque"],
            "Appelez-nous au <b>01 23 45 67 89</b> (prix d'un appel local), du lundi au samedi de 8 h à 20 h.",
        ),
        "en": (
            ["How can I call you?", "What is your phone number?", "~call the bank"],
            "Call us on <b>+33 1 23 45 67 89</b>, Monday to Saturday, 8 am to 8 pm.",
        ),
        "spaces": {
            "Pro": {
                "fr": "Votre ligne professionnelle : <b>01 23 45 00 00</b>, du lundi au vendredi de 8 h à 19 h.",
                "en": "Your business line: <b>+33 1 23 45 00 00</b>, Monday to Friday, 8 am to 7 pm.",
            }
        },
    },
    {
        "label": "Lost card",
        "featured": True,
        "tag": "Cartes",
        "fr": (
            ["J'ai perdu ma carte", "~Je ne trouve plus ma {carte}", "~carte perdue", "~perte de carte"],
            "Je vais vous aider à faire opposition. Votre carte a-t-elle été volée ?<br/>"
            + _link("Oui, elle a été volée")
            + " — "
            + _link("Non, je l'ai perdue"),
        ),
        "en": (
            ["I lost my card", "~I can't find my {card}", "~lost card"],
            "I will help you block it. Was your card stolen?<br/>"
            + _link("Yes, it was stolen")
            + " — "
            + _link("No, I lost it"),
        ),
        "children": [
            {
                "label": "Lost card: stolen",
                "fr": (
                    ["Oui, elle a été volée", "~{Oui}", "~volée", "~on me l'a volée"],
                    "Faites opposition tout de suite au <b>01 23 45 67 00</b> (24 h/24), puis déposez plainte. "
                    "Une nouvelle carte vous sera envoyée sous 5 jours.",
                ),
                "en": (
                    ["Yes, it was stolen", "~{Oui}", "~stolen", "~someone stole it"],
                    "Block it right now on <b>+33 1 23 45 67 00</b> (24/7), then report the theft to the police. "
                    "A new card will be sent within 5 days.",
                ),
                "feedback": True,
            },
            {
                "label": "Lost card: lost",
                "fr": (
                    ["Non, je l'ai perdue", "~{Non}", "~perdue", "~je l'ai égarée"],
                    "Bloquez-la dans l'application (Cartes › Bloquer) : le blocage est réversible si vous la retrouvez.",
                ),
                "en": (
                    ["No, I lost it", "~{Non}", "~misplaced", "~i just misplaced it"],
                    "Block it in the app (Cards › Block): you can unblock it if you find it again.",
                ),
                "feedback": True,
            },
        ],
    },
    {
        "label": "Card not arrived",
        "tag": "Cartes",
        "fr": (
            ["Je n'ai pas reçu ma nouvelle carte", "Quand vais-je recevoir ma carte ?", "~carte pas arrivée"],
            "Une carte arrive sous <b>7 jours ouvrés</b> après la commande. Passé ce délai, appelez-nous.",
        ),
        "en": (
            ["I have not received my new card", "When will my card arrive?", "~card not arrived"],
            "A card arrives within <b>7 working days</b> of the order. After that, please call us.",
        ),
        "feedback": True,
    },
    {
        "label": "Activate card",
        "tag": "Cartes",
        "fr": (
            ["Comment activer ma carte ?", "~activation carte"],
            "Faites un premier retrait ou un paiement avec votre code : la carte s'active automatiquement.",
        ),
        "en": (
            ["How do I activate my card?", "~card activation"],
            "Make a first withdrawal or payment with your PIN: the card activates itself.",
        ),
    },
    {
        "label": "Forgotten PIN",
        "tag": "Cartes",
        "fr": (
            ["J'ai oublié mon code de carte", "Comment retrouver mon code secret ?", "~code pin oublié"],
            "Vous pouvez afficher votre code dans l'application (Cartes › Voir mon code), après authentification.",
        ),
        "en": (
            ["I forgot my PIN", "How can I get my PIN back?", "~forgotten pin code"],
            "You can display your PIN in the app (Cards › Show my PIN) after signing in.",
        ),
    },
    {
        "label": "Card limit",
        "tag": "Cartes",
        "fr": (
            ["Comment augmenter le plafond de ma carte ?", "Modifier mon plafond de paiement", "~plafond carte"],
            "Dans l'application, allez dans Cartes › Plafonds : une hausse temporaire est possible pendant 30 jours.",
        ),
        "en": (
            ["How do I raise my card limit?", "Change my payment limit", "~card limit"],
            "In the app, go to Cards › Limits: a temporary increase is possible for 30 days.",
        ),
    },
    {
        "label": "Card swallowed",
        "tag": "Cartes",
        "fr": (
            ["Le distributeur a avalé ma carte", "~Le {distributeur} a gardé ma {carte}", "~carte avalée"],
            "Si le distributeur est dans une de nos agences, elle vous sera rendue sur présentation d'une pièce "
            "d'identité. Sinon, faites opposition et commandez une nouvelle carte.",
        ),
        "en": (
            ["The cash machine swallowed my card", "~The {cash machine} kept my {card}", "~card swallowed"],
            "If the machine belongs to one of our branches, the card is returned to you with an ID. "
            "Otherwise block it and order a new one.",
        ),
    },
    {
        "label": "Open an account",
        "tag": "Compte",
        "fr": (
            ["Comment ouvrir un compte ?", "Je veux devenir client", "~ouverture de compte"],
            "Ouvrez votre compte en ligne en 10 minutes avec une pièce d'identité et un justificatif de domicile.",
        ),
        "en": (
            ["How do I open an account?", "I want to become a customer", "~account opening"],
            "Open your account online in 10 minutes with an ID and a proof of address.",
        ),
        "spaces": {
            "Pro": {
                "fr": "Pour un compte professionnel, prévoyez aussi un extrait Kbis de moins de 3 mois.",
                "en": "For a business account, also bring a company registration extract under 3 months old.",
            }
        },
    },
    {
        "label": "Close an account",
        "tag": "Compte",
        "fr": (
            ["Comment fermer mon compte ?", "Je veux clôturer mon compte", "~clôture de compte"],
            "Envoyez-nous une demande signée depuis votre messagerie sécurisée ; la clôture est gratuite.",
        ),
        "en": (
            ["How do I close my account?", "I want to close my account", "~account closure"],
            "Send us a signed request from your secure messaging; closing is free.",
        ),
    },
    {
        "label": "Account fees",
        "tag": "Compte",
        "fr": (
            ["Combien coûte le compte ?", "Quels sont vos frais bancaires ?", "~tarifs"],
            "Le compte est à <b>2 € par mois</b>, carte comprise.",
        ),
        "en": (
            ["How much does the account cost?", "What are your bank fees?", "~pricing"],
            "The account costs <b>€2 a month</b>, card included.",
        ),
        "spaces": {
            "Pro": {
                "fr": "Le compte professionnel est à <b>12 € par mois</b>, deux cartes comprises.",
                "en": "The business account costs <b>€12 a month</b>, two cards included.",
            }
        },
        "feedback": True,
    },
    {
        "label": "IBAN",
        "tag": "Compte",
        "fr": (
            ["Où trouver mon RIB ?", "Comment obtenir mon IBAN ?", "~rib"],
            "Votre RIB est dans l'application, rubrique Comptes › RIB, à télécharger ou à partager.",
        ),
        "en": (
            ["Where can I find my IBAN?", "How do I get my bank details?", "~iban"],
            "Your IBAN is in the app under Accounts › Bank details, to download or share.",
        ),
    },
    {
        "label": "Make a transfer",
        "featured": True,
        "tag": "Virements",
        "fr": (
            ["Comment faire un virement ?", "Envoyer de l'argent à quelqu'un", "~virement"],
            "Dans l'application : Virements › Nouveau virement, choisissez le bénéficiaire et le montant.",
        ),
        "en": (
            ["How do I make a transfer?", "Send money to someone", "~transfer"],
            "In the app: Transfers › New transfer, then choose the payee and the amount.",
        ),
    },
    {
        "label": "Transfer delay",
        "tag": "Virements",
        "fr": (
            ["Combien de temps prend un virement ?", "Mon virement n'est pas arrivé", "~délai virement"],
            "Un virement SEPA arrive en <b>1 jour ouvré</b> ; un virement instantané en quelques secondes.",
        ),
        "en": (
            ["How long does a transfer take?", "My transfer has not arrived", "~transfer delay"],
            "A SEPA transfer arrives in <b>1 working day</b>; an instant transfer in seconds.",
        ),
        "feedback": True,
    },
    {
        "label": "Add a payee",
        "tag": "Virements",
        "fr": (
            ["Comment ajouter un bénéficiaire ?", "~nouveau bénéficiaire"],
            "Virements › Bénéficiaires › Ajouter ; l'ajout est confirmé par un code reçu par SMS.",
        ),
        "en": (
            ["How do I add a payee?", "~new beneficiary"],
            "Transfers › Payees › Add; you confirm with a code sent by text message.",
        ),
    },
    {
        "label": "Cancel a transfer",
        "tag": "Virements",
        "fr": (
            ["Comment annuler un virement ?", "~annulation virement"],
            "Un virement programmé s'annule dans l'application jusqu'à la veille de son exécution. "
            "Un virement déjà parti ne peut plus être annulé.",
        ),
        "en": (
            ["How do I cancel a transfer?", "~cancel payment"],
            "A scheduled transfer can be cancelled in the app until the day before. A transfer already sent cannot.",
        ),
    },
    {
        "label": "International transfer",
        "tag": "Virements",
        "fr": (
            ["Puis-je faire un virement à l'étranger ?", "~virement international"],
            "Oui, vers plus de 100 pays ; les frais sont affichés avant validation.",
        ),
        "en": (
            ["Can I send money abroad?", "~international transfer"],
            "Yes, to over 100 countries; the fees are shown before you confirm.",
        ),
    },
    {
        "label": "Mobile app",
        "tag": "Banque en ligne",
        "fr": (
            ["Où télécharger l'application ?", "Avez-vous une application mobile ?", "~appli"],
            "L'application Banque Exemple est gratuite sur l'App Store et Google Play.",
        ),
        "en": (
            ["Where can I download the app?", "Do you have a mobile app?", "~app"],
            "The Banque Exemple app is free on the App Store and Google Play.",
        ),
    },
    {
        "label": "Forgotten password",
        "tag": "Banque en ligne",
        "fr": (
            ["J'ai oublié mon mot de passe", "Je n'arrive plus à me connecter", "~mot de passe oublié"],
            "Cliquez sur « Mot de passe oublié » sur l'écran de connexion : un lien vous est envoyé par e-mail.",
        ),
        "en": (
            ["I forgot my password", "I can't log in any more", "~forgotten password"],
            "Click “Forgot password” on the sign-in screen: a link is sent to you by e-mail.",
        ),
    },
    {
        "label": "Change address",
        "tag": "Compte",
        "fr": (
            ["Comment changer d'adresse ?", "J'ai déménagé", "~changement d'adresse"],
            "Mettez à jour votre adresse dans Profil › Coordonnées, avec un justificatif de domicile.",
        ),
        "en": (
            ["How do I change my address?", "I have moved house", "~change of address"],
            "Update your address in Profile › Contact details, with a proof of address.",
        ),
    },
    {
        "label": "Loan",
        "tag": "Crédits",
        "fr": (
            ["Je voudrais faire un prêt immobilier", "Simuler un crédit", "~emprunt"],
            'Faites une simulation sur <a href="https://example.org/credit" target="_blank">notre simulateur</a> ; '
            "un conseiller vous rappelle sous 48 h.",
        ),
        "en": (
            ["I would like a mortgage", "Simulate a loan", "~borrow money"],
            'Try <a href="https://example.org/loans" target="_blank">our loan simulator</a>; '
            "an advisor calls you back within 48 hours.",
        ),
        # Context conditions (knowledge/demo/branches.py): the first branch whose conditions all hold on the
        # dialog's variables answers; else the answer above. « Je suis chef d'entreprise » sets client_type.
        "branches": {
            "fr": [
                (
                    [("client_type", "is", "pro")],
                    "Pour votre activité : <b>crédit immobilier professionnel dès 4,1 %</b> sur 15 ans ; "
                    "votre conseiller entreprises étudie votre projet sous 48 h.",
                ),
                (
                    [("age", "less", "30")],
                    "<b>Prêt Jeune Propriétaire</b> pour les moins de 30 ans : 3,2 % sur 25 ans, sans frais de "
                    "dossier. Simulez-le sur "
                    '<a href="https://example.org/credit" target="_blank">notre simulateur</a>.',
                ),
            ],
            "en": [
                (
                    [("client_type", "is", "pro")],
                    "For your business: <b>commercial mortgages from 4.1%</b> over 15 years; your business "
                    "advisor studies your project within 48 hours.",
                ),
                (
                    [("age", "less", "30")],
                    "<b>First-home loan</b> for under-30s: 3.2% over 25 years, no arrangement fee. Try "
                    '<a href="https://example.org/loans" target="_blank">our loan simulator</a>.',
                ),
            ],
        },
    },
    {
        # Sets a dialog variable (a branch without condition nor text: the answer, and the variable set).
        "label": "I run a company",
        "tag": "Crédits",
        "fr": (
            ["Je suis chef d'entreprise", "~je suis un client professionnel", "~je suis une entreprise"],
            "C'est noté : je vous réponds désormais en tant que <b>client professionnel</b>.",
        ),
        "en": (
            ["I run a company", "~I am a business client", "~I own a business"],
            "Noted: from now on I answer you as a <b>business customer</b>.",
        ),
        "branches": {
            "fr": [([], "", {"client_type": "pro"})],
            "en": [([], "", {"client_type": "pro"})],
        },
    },
    {
        "label": "Savings rates",
        "tag": "Épargne",
        "fr": (
            ["Quel est le taux du livret d'épargne ?", "~taux épargne"],
            "Le livret Exemple rapporte <b>2,4 %</b> par an, sans frais.",
        ),
        "en": (
            ["What is the savings account rate?", "~savings rate"],
            "The Exemple savings account pays <b>2.4%</b> a year, with no fees.",
        ),
    },
    {
        "label": "Phishing",
        "tag": "Sécurité",
        "fr": (
            [
                "J'ai reçu un e-mail suspect",
                "Est-ce une tentative de fraude ?",
                "~On me demande mes codes par {mail}",
                "~hameçonnage",
            ],
            "Ne cliquez sur aucun lien et ne donnez jamais vos codes. Transférez l'e-mail à securite@example.org.",
        ),
        "en": (
            ["I received a suspicious e-mail", "Is this a scam?", "~Someone asks for my codes by {mail}", "~phishing"],
            "Don't click any link and never give your codes. Forward the e-mail to security@example.org.",
        ),
        "feedback": True,
    },
    {
        # Hands the dialog to a human operator (live chat); without one available, the bot says so.
        "label": "Talk to an advisor",
        "tag": "Agences",
        "livechat": True,
        "fr": (
            ["Je veux parler à un conseiller", "Puis-je parler à un humain ?", "~conseiller", "~parler à quelqu'un"],
            "Je vous mets en relation avec un conseiller.",
        ),
        "en": (
            ["I want to talk to someone", "I want to talk to an advisor", "Can I speak to a human?", "~advisor"],
            "I am putting you through to an advisor.",
        ),
    },
    {
        "label": "Personal data",
        "tag": "Sécurité",
        "fr": (
            ["Comment accéder à mes données personnelles ?", "~rgpd"],
            "Utilisez le menu du chat › « Mes données » pour demander une copie ou la suppression de vos données.",
        ),
        "en": (
            ["How can I access my personal data?", "~gdpr"],
            "Use the chat menu › “My data” to ask for a copy or the deletion of your data.",
        ),
    },
    {
        "label": "Cheque book",
        "tag": "Compte",
        "fr": (
            ["Comment commander un chéquier ?", "~chéquier"],
            "Commandez-le dans l'application (Comptes › Chéquier) : il arrive sous 10 jours.",
        ),
        "en": (
            ["How do I order a cheque book?", "~cheque book"],
            "Order it in the app (Accounts › Cheque book): it arrives within 10 days.",
        ),
    },
    {
        # Answered in space Pro only: asked in Defaut, the bot offers to change space (space redirection).
        "label": "Payment terminal",
        "tag": "Compte",
        "fr": (["Comment obtenir un terminal de paiement ?", "~TPE", "~terminal de paiement pour mon commerce"], None),
        "en": (["How do I get a card payment terminal?", "~payment terminal"], None),
        "spaces": {
            "Pro": {
                "fr": "Votre conseiller professionnel installe un <b>terminal de paiement</b> sous 5 jours : "
                "demandez-le dans l'espace Pro › Encaissements.",
                "en": "Your business advisor installs a <b>card payment terminal</b> within 5 days: ask for it in "
                "Business › Payments.",
            }
        },
    },
    {
        # Slot filling (SLOT_FILLING below): asks the day and the phone number the sentence lacks.
        "label": "Appointment",
        "tag": "Agences",
        "fr": (
            ["Je voudrais un rendez-vous", "Prendre rendez-vous avec un conseiller", "~rendez-vous", "~rdv"],
            "Rendez-vous noté le ${capture.jour}, nous vous appellerons au ${capture.telephone}.",
        ),
        "en": (
            ["I would like an appointment", "Book an appointment with an advisor", "~appointment"],
            "Appointment noted for ${capture.jour}, we will call you on ${capture.telephone}.",
        ),
    },
    {
        "label": "Draft: new premium card",
        "tag": "Cartes",
        "status": "draft",
        "fr": (
            ["Parlez-moi de la nouvelle carte premium"],
            "La carte Premium arrive bientôt (réponse en cours de rédaction).",
        ),
        "en": (["Tell me about the new premium card"], "The Premium card is coming soon (answer being written)."),
    },
    {
        # Its answer carries the satisfaction survey: the chatbox fetches it and shows it under the bubble.
        "label": "Give your opinion",
        "tag": "Social",
        "survey": "satisfaction",
        "fr": (
            ["Je veux donner mon avis", "~donner mon avis", "~laisser un avis", "~enquête de satisfaction"],
            "Merci de prendre une minute pour nous répondre : votre avis nous aide à améliorer Clara.",
        ),
        "en": (
            ["I want to give my opinion", "~give feedback", "~leave a review", "~satisfaction survey"],
            "Thank you for taking a minute to answer: your opinion helps us improve Clara.",
        ),
    },
]

# Surveys (dialogs/surveys/), per language; an item's "survey" names the one its answers carry.
SURVEYS = {
    "satisfaction": {
        "fr": {
            "title": "Votre avis sur Clara",
            "submitValue": "Envoyer",
            "requiredMessage": "Merci de répondre à cette question.",
            "fields": [
                {"type": "TITLE", "label": "Trois questions, moins d'une minute."},
                {
                    "type": "MULTIPLE_CHOICE",
                    "label": "Êtes-vous satisfait de la réponse ?",
                    "mandatory": True,
                    "options": ["Très satisfait", "Satisfait", "Peu satisfait", "Pas satisfait"],
                },
                {
                    "type": "SELECT",
                    "label": "Comment nous avez-vous connus ?",
                    "options": ["Site web", "Agence", "Bouche à oreille", "Autre"],
                },
                {
                    "type": "MULTIPLE_CHOICE",
                    "label": "Sur quels sujets ?",
                    "multiple": True,
                    "options": ["Cartes", "Virements", "Compte", "Agences"],
                },
                {"type": "LONG_TEXT", "label": "Une remarque, une suggestion ?", "maxLength": 1000},
            ],
        },
        "en": {
            "title": "Your opinion of Clara",
            "submitValue": "Send",
            "requiredMessage": "Please answer this question.",
            "fields": [
                {"type": "TITLE", "label": "Three questions, less than a minute."},
                {
                    "type": "MULTIPLE_CHOICE",
                    "label": "Are you satisfied with the answer?",
                    "mandatory": True,
                    "options": ["Very satisfied", "Satisfied", "Not very satisfied", "Not satisfied"],
                },
                {
                    "type": "SELECT",
                    "label": "How did you hear about us?",
                    "options": ["Website", "Branch", "Word of mouth", "Other"],
                },
                {
                    "type": "MULTIPLE_CHOICE",
                    "label": "About which topics?",
                    "multiple": True,
                    "options": ["Cards", "Transfers", "Account", "Branches"],
                },
                {"type": "LONG_TEXT", "label": "A remark, a suggestion?", "maxLength": 1000},
            ],
        },
    }
}

# Slot filling (dialogs/slots/): per item label, its introductory sentence and the slot items it needs,
# in the order they are asked; the bot preference bot.no.group.uuid names the group NO_GROUP.
SLOT_FILLING = {
    "Appointment": {
        "intro": {
            "fr": "Avec plaisir ! Il me faut deux informations.",
            "en": "Gladly! I need two details.",
        },
        "slots": [
            {
                "label": "Appointment day",
                "variable": "jour",
                "type": "date",
                "question": {
                    "fr": "Quel jour vous conviendrait ? (par exemple « mardi » ou « 12/03 »)",
                    "en": "Which day suits you? (for example “Tuesday” or “12/03”)",
                },
                "invalid": {"fr": "Je n'ai pas reconnu de date.", "en": "I did not recognise a date."},
            },
            {
                "label": "Phone number to call back",
                "variable": "telephone",
                "type": "phone",
                "question": {
                    "fr": "À quel numéro de téléphone pouvons-nous vous appeler ?",
                    "en": "Which phone number can we call you on?",
                },
                "invalid": {
                    "fr": "Ce numéro ne semble pas valide (10 chiffres, par exemple 06 12 34 56 78).",
                    "en": "That number does not look valid (for example +33 6 12 34 56 78).",
                },
            },
        ],
    }
}
NO_GROUP = "Non"


# Rich answers (client-contract.md §3), one item of each kind so a person can try them: quick replies,
# a product card, a carousel of cards, a sidebar, a GUI action, a URL redirection, a multi-step answer
# and an answer split into bubbles by <hr/>. Templates hold exactly the fields the chatbox reads.
def _card_image(colour: str, name: str) -> str:
    """A small bank card drawn in SVG, as a data: URL (no file to serve, any site can show it)."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180" viewBox="0 0 320 180">'
        f'<rect width="320" height="180" rx="16" fill="{colour}"/>'
        '<rect x="28" y="62" width="44" height="34" rx="6" fill="#f4d27a"/>'
        f'<text x="28" y="150" font-family="sans-serif" font-size="22" fill="#fff">{name}</text></svg>'
    )
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def _template(**fields) -> str:
    return json.dumps(fields, ensure_ascii=False)


ACCOUNT_CARDS = [
    # (card, colour, monthly price fr, monthly price en, description fr, description en)
    (
        "Essentiel",
        "#3b6ea5",
        "2 € / mois",
        "€2 / month",
        "Une carte à autorisation systématique.",
        "A card checked on every payment.",
    ),
    (
        "Confort",
        "#1f7a5c",
        "6 € / mois",
        "€6 / month",
        "Une Visa Classic et des virements instantanés.",
        "A Visa Classic and instant transfers.",
    ),
    (
        "Premium",
        "#2b2b3a",
        "15 € / mois",
        "€15 / month",
        "Une Visa Premier, assurances voyage incluses.",
        "A Visa Premier with travel insurance.",
    ),
]


def _account_carousel(language: str) -> str:
    fields = {}
    for number, (name, colour, price_fr, price_en, about_fr, about_en) in enumerate(ACCOUNT_CARDS, start=1):
        french = language == "fr"
        fields |= {
            f"title{number}": f"Compte {name}" if french else f"{name} account",
            f"subtitle{number}": about_fr if french else about_en,
            f"imageLink{number}": _card_image(colour, name),
            f"imageName{number}": f"Carte du compte {name}" if french else f"{name} account card",
            f"numeric{number}": price_fr if french else price_en,
            f"buttonA{number}": _link("Comment ouvrir un compte ?" if french else "How do I open an account?"),
        }
    return _template(**fields)


RICH_ITEMS = [
    {
        "label": "Card range (quick replies)",
        "tag": "Offres",
        "featured": True,
        "fr": (
            ["Quelles cartes proposez-vous ?", "~vos cartes bancaires", "~gamme de cartes"],
            "Nous avons une carte pour chaque usage. Que voulez-vous voir ?",
        ),
        "en": (
            ["Which cards do you offer?", "~your bank cards", "~card range"],
            "We have a card for every use. What would you like to see?",
        ),
        "rich": {
            "fr": {
                "template_name": "dydu_quick_reply_001",
                "template_data": _template(
                    button1=_link("La carte Visa Premier"),
                    button2=_link("Nos offres de compte"),
                    button3=_link("J'ai perdu ma carte"),
                ),
            },
            "en": {
                "template_name": "dydu_quick_reply_001",
                "template_data": _template(
                    button1=_link("The Visa Premier card"),
                    button2=_link("Your account offers"),
                    button3=_link("I lost my card"),
                ),
            },
        },
    },
    {
        "label": "Visa Premier card (product card)",
        "tag": "Offres",
        "fr": (
            ["La carte Visa Premier", "Présentez-moi la carte Visa Premier", "~visa premier"],
            "La carte Visa Premier :",
        ),
        "en": (
            ["The Visa Premier card", "Tell me about the Visa Premier card", "~visa premier"],
            "The Visa Premier card:",
        ),
        "rich": {
            "fr": {
                "template_name": "dydu_product_001",
                "template_data": _template(
                    title="Visa Premier",
                    subtitle="Plafonds élevés, assurances voyage et assistance 24 h/24 partout dans le monde.",
                    imageLink=_card_image("#6b4fa0", "Visa Premier"),
                    imageName="Carte Visa Premier",
                    numeric="12,50 € / mois",
                    buttonA=_link("Je veux parler à un conseiller"),
                    buttonB='<a href="https://example.org/visa-premier" target="_blank">En savoir plus</a>',
                ),
            },
            "en": {
                "template_name": "dydu_product_001",
                "template_data": _template(
                    title="Visa Premier",
                    subtitle="High limits, travel insurance and 24/7 assistance all over the world.",
                    imageLink=_card_image("#6b4fa0", "Visa Premier"),
                    imageName="Visa Premier card",
                    numeric="€12.50 / month",
                    buttonA=_link("I want to talk to an advisor"),
                    buttonB='<a href="https://example.org/visa-premier" target="_blank">Learn more</a>',
                ),
            },
        },
    },
    {
        "label": "Account offers (carousel)",
        "tag": "Offres",
        "featured": True,
        "fr": (
            ["Nos offres de compte", "Quelles sont vos offres de compte ?", "~formules de compte"],
            "Nos trois comptes :",
        ),
        "en": (["Your account offers", "Which accounts do you offer?", "~account plans"], "Our three accounts:"),
        "rich": {
            "fr": {"template_name": "dydu_carousel_001", "template_data": _account_carousel("fr")},
            "en": {"template_name": "dydu_carousel_001", "template_data": _account_carousel("en")},
        },
    },
    {
        "label": "Documents to open an account (sidebar)",
        "tag": "Compte",
        "fr": (
            ["Quels documents pour ouvrir un compte ?", "~pièces justificatives", "~justificatifs"],
            "Trois justificatifs suffisent : la liste est dans le panneau « Documents à fournir ».",
        ),
        "en": (
            ["Which documents do I need to open an account?", "~supporting documents"],
            "Three documents are enough: see the “Documents to bring” panel.",
        ),
        "rich": {
            "fr": {
                "sidebar": {
                    "title": "Documents à fournir",
                    "content": "<ul><li>Une pièce d'identité en cours de validité</li>"
                    "<li>Un justificatif de domicile de moins de 3 mois</li>"
                    "<li>Vos trois derniers bulletins de salaire</li></ul>",
                }
            },
            "en": {
                "sidebar": {
                    "title": "Documents to bring",
                    "content": "<ul><li>A valid ID</li><li>A proof of address under 3 months old</li>"
                    "<li>Your last three payslips</li></ul>",
                }
            },
        },
    },
    {
        "label": "Complaint (GUI action)",
        "tag": "Compte",
        "fr": (
            ["Je veux faire une réclamation", "~réclamation", "~porter réclamation"],
            "Décrivez votre réclamation en une phrase dans la zone de saisie : je la transmets au service clients.",
        ),
        "en": (
            ["I want to make a complaint", "~complaint"],
            "Describe your complaint in one sentence in the input box: I pass it on to customer service.",
        ),
        "rich": {
            # CV5 calls the window function a guiAction names (here: the input's placeholder).
            "fr": {"gui_action": "javascript:dyduCustomPlaceHolder('Décrivez votre réclamation…')"},
            "en": {"gui_action": "javascript:dyduCustomPlaceHolder('Describe your complaint…')"},
        },
    },
    {
        "label": "Business customers (URL redirection)",
        "tag": "Compte",
        "fr": (
            ["Je suis un professionnel", "~client professionnel", "~espace pro"],
            "Je vous emmène sur la page des professionnels.",
        ),
        "en": (["I am a business customer", "~business customer"], "Taking you to the business page."),
        "rich": {
            # The chatbox opens it in the host page: here the demo page in the Pro space.
            "fr": {"url_redirect": "/demo/?space=Pro"},
            "en": {"url_redirect": "/demo/?space=Pro"},
        },
    },
    {
        "label": "Contactless payment (steps)",
        "tag": "Banque en ligne",
        "fr": (
            ["Comment activer le paiement sans contact ?", "~sans contact"],
            "<b>Étape 1</b> : ouvrez l'application et touchez Cartes.",
        ),
        "en": (
            ["How do I turn on contactless payment?", "~contactless"],
            "<b>Step 1</b>: open the app and tap Cards.",
        ),
        "rich": {
            "fr": {
                "steps": [
                    {"text": "<b>Étape 2</b> : choisissez votre carte, puis Paramètres."},
                    {
                        "text": "<b>Étape 3</b> : activez « Paiement sans contact ». C'est fait !",
                        "sidebar": {"title": "Plafonds", "content": "<p>50 € par paiement, 150 € cumulés.</p>"},
                    },
                ]
            },
            "en": {
                "steps": [
                    {"text": "<b>Step 2</b>: choose your card, then Settings."},
                    {
                        "text": "<b>Step 3</b>: turn on “Contactless payment”. Done!",
                        "sidebar": {"title": "Limits", "content": "<p>€50 per payment, €150 in a row.</p>"},
                    },
                ]
            },
        },
    },
    {
        "label": "Security tips (<hr> bubbles)",
        "tag": "Sécurité",
        "fr": (
            ["Comment sécuriser mon compte ?", "~conseils de sécurité"],
            "Trois bons réflexes :<hr/>1. Un mot de passe unique, jamais partagé.<hr/>"
            "2. La double authentification dans l'application.<hr/>3. Des alertes SMS sur chaque paiement.",
        ),
        "en": (
            ["How do I keep my account safe?", "~security tips"],
            "Three good habits:<hr/>1. A unique password, never shared.<hr/>"
            "2. Two-factor authentication in the app.<hr/>3. Text alerts on every payment.",
        ),
    },
]
ITEMS += RICH_ITEMS

# A reminder added after the answers tagged Cartes (a complementary answer), once per dialog.
CARD_REMINDER = {
    "fr": "<i>Rappel : la banque ne vous demandera jamais votre code secret.</i>",
    "en": "<i>Reminder: the bank will never ask for your PIN.</i>",
}

# Predefined answers: the operators' canned answers in the live-chat console (never matched).
PREDEFINED = [
    {
        "label": "Accueil du visiteur",
        "fr": "Bonjour, je suis votre conseiller de la Banque Exemple. Comment puis-je vous aider ?",
        "en": "Hello, I am your advisor at Banque Exemple. How can I help you?",
    },
    {
        "label": "Vérification d'identité",
        "fr": "Pour votre sécurité, pouvez-vous me confirmer votre date de naissance et votre code postal ?",
        "en": "For your security, could you confirm your date of birth and your postcode?",
    },
    {
        "label": "Carte mise en opposition",
        "tag": "Cartes",
        "fr": "C'est fait : votre carte est en opposition. Une nouvelle carte vous parviendra sous 5 jours ouvrés.",
        "en": "Done: your card is blocked. A new card will reach you within 5 working days.",
    },
    {
        "label": "Clôture",
        "fr": "Avez-vous d'autres questions ? Je vous souhaite une excellente journée.",
        "en": "Do you have any other questions? Have a great day.",
    },
]
