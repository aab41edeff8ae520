"""Two small bots for the calibration tests, a French shop and a Dutch municipality: items of five
formulations each, as a bot's author writes them (written for these tests, not taken from bench/data)."""

from knowledge.matching import FormulationEntry

FRENCH = {
    1: [
        "Où en est ma commande ?",
        "Comment suivre mon colis ?",
        "Je voudrais le numéro de suivi de mon envoi",
        "Ma commande est-elle partie ?",
        "Statut de ma livraison",
    ],
    2: [
        "Comment retourner un article ?",
        "Je souhaite renvoyer un produit",
        "Procédure de retour",
        "Combien de jours pour rendre un achat ?",
        "L'étiquette de retour est-elle gratuite ?",
    ],
    3: [
        "Quand serai-je remboursé ?",
        "Je n'ai pas reçu mon remboursement",
        "Délai de remboursement",
        "Sur quelle carte est fait le remboursement ?",
        "Mon argent n'est pas revenu après le retour",
    ],
    4: [
        "Quels moyens de paiement acceptez-vous ?",
        "Puis-je payer avec PayPal ?",
        "Acceptez-vous les chèques ?",
        "Paiement par carte American Express",
        "Modes de règlement possibles",
    ],
    5: [
        "J'ai oublié mon mot de passe",
        "Je n'arrive pas à me connecter à mon compte",
        "Réinitialiser le mot de passe",
        "Le lien de réinitialisation ne marche pas",
        "Mon compte client est bloqué",
    ],
    6: [
        "Quels sont les horaires du magasin ?",
        "Êtes-vous ouverts le dimanche ?",
        "À quelle heure ferme la boutique ?",
        "Adresse de vos magasins",
        "Où se trouve la boutique la plus proche ?",
    ],
    7: [
        "Combien coûte la livraison ?",
        "Frais de port",
        "La livraison est-elle offerte ?",
        "À partir de quel montant l'envoi est gratuit ?",
        "Tarif d'expédition à domicile",
    ],
    8: [
        "Mon code promo ne fonctionne pas",
        "Où saisir un code de réduction ?",
        "Peut-on cumuler deux bons de réduction ?",
        "Le code de bienvenue est refusé",
        "J'ai oublié d'appliquer ma remise",
    ],
}

DUTCH = {
    1: [
        "Hoe vraag ik een paspoort aan?",
        "Ik wil een nieuwe identiteitskaart",
        "Mijn paspoort is verlopen",
        "Wat kost een ID-kaart?",
        "Hoe lang duurt het aanvragen van een paspoort?",
    ],
    2: [
        "Hoe geef ik mijn verhuizing door?",
        "Ik ga verhuizen naar deze gemeente",
        "Adreswijziging doorgeven",
        "Binnen hoeveel dagen moet ik mijn nieuwe adres melden?",
        "Inschrijven na een verhuizing",
    ],
    3: [
        "Hoe laat ik grofvuil ophalen?",
        "Ik wil een oude bank weggooien",
        "Waar kan ik grof afval kwijt?",
        "Openingstijden van de milieustraat",
        "Oude matras laten ophalen",
    ],
    4: [
        "Hoe vraag ik een parkeervergunning aan?",
        "Parkeervergunning voor bewoners",
        "Wat kost een parkeervergunning?",
        "Bezoekersvergunning voor parkeren",
        "Kenteken van mijn vergunning wijzigen",
    ],
    5: [
        "Wat zijn de openingstijden van het gemeentehuis?",
        "Is het stadhuis op zaterdag open?",
        "Hoe laat gaat de balie open?",
        "Waar is het gemeentehuis?",
        "Zijn jullie open op koopavond?",
    ],
    6: [
        "Ik wil trouwen, wat moet ik regelen?",
        "Geregistreerd partnerschap aangaan",
        "Melding voorgenomen huwelijk",
        "Wat kost een huwelijk bij de gemeente?",
        "Een trouwlocatie kiezen",
    ],
    7: [
        "Mag ik een boom kappen?",
        "Kapvergunning aanvragen",
        "Boom in mijn tuin omhalen",
        "Heb ik een vergunning nodig om een boom te rooien?",
        "Wat kost een kapvergunning?",
    ],
    8: [
        "Mijn container is kapot",
        "Onze kliko is gestolen",
        "Een extra container aanvragen",
        "Grotere bak voor restafval",
        "Het deksel van de container is afgebroken",
    ],
}


def entries(bot: dict[int, list[str]], without: set[int] = frozenset()) -> list[FormulationEntry]:
    """The bot's formulations, items in `without` left out (held-out intents)."""
    return [
        FormulationEntry(id=item * 100 + n, item_id=item, text=text)
        for item, texts in bot.items()
        if item not in without
        for n, text in enumerate(texts)
    ]
