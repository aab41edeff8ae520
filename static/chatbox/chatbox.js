/*
 * Embeddable chatbox: one script tag, plain JavaScript, no build step, no dependencies.
 * It speaks the servlet API the way Dydu's CV5 chatbox does (see spec/client-contract.md).
 *
 *   <script src="https://bots.example/static/chatbox/chatbox.js" data-bot="<bot UUID>"
 *           data-server="https://bots.example" data-language="fr" data-space="Defaut" defer></script>
 *
 * Optional attributes: data-title ("Name — subtitle"), data-open="true" (panel open on load),
 * data-accent (a CSS colour), data-transport="websocket" (talk over /servlet/chatWs when it opens).
 *
 * Live chat with a human operator (client-contract.md §4) starts when an answer hands the dialog over:
 * the socket is tried first, REST polling takes over if it does not open or drops; the state is kept in
 * localStorage so that a reload resumes it. Hooks for tests: the host element carries
 * data-livechat="off|queued|live" and data-transport="websocket|polling"; data-testid="livechat-notice",
 * "operator-typing", "queue-banner", "leave-queue", "gdpr", "gdpr-done", "callback", "callback-error",
 * "callback-done"; every bubble data-from="user|bot|operator".
 *
 * When nobody can take a visitor who asks for a human, the answer's `callback` becomes a button and a small form
 * in the conversation (POST callback/<bot>), in place of its link to the callback page.
 *
 * The FR / EN switch continues the same dialog in the other language (each talk carries `language`); the
 * header's menu starts a new conversation or opens the personal-data (GDPR) form.
 */
(function () {
  "use strict";

  if (window.dyduChatbox) return; // one chatbox per page: `reword` is a page-wide function

  var script = document.currentScript || document.querySelector("script[data-bot][src*='chatbox']");
  if (!script) return;

  // ---------------------------------------------------------------- configuration

  var scriptUrl = new URL(script.getAttribute("src"), document.baseURI);
  var config = {
    bot: (script.dataset.bot || "").trim(),
    server: (script.dataset.server || scriptUrl.origin).replace(/\/+$/, ""),
    language: (script.dataset.language || "").trim().toLowerCase(),
    space: (script.dataset.space || "Defaut").trim(),
    title: (script.dataset.title || "").trim(),
    open: script.dataset.open === "true",
    accent: (script.dataset.accent || "").trim(),
    websocket: script.dataset.transport === "websocket",
  };
  var API = config.server + "/servlet/api/";
  var SYNCHRON = "U3luY2hyb24="; // base64 of "Synchron": the REST talk's `mode` (client-contract.md §2.2 (8))
  var TIMEOUT = { status: 5000, talk: 50000, other: 15000 };
  var DAY_MS = 24 * 3600 * 1000;
  var POLLING = "cG9sbGluZw=="; // base64 of "polling": the mode of the REST talks made in live chat (§4.3)
  var LIVECHAT = {
    socketOpenMs: 3000, // live chat falls back to polling when the socket is not open by then
    pollMs: 2500, // CV5's polling period
    safetyPollMs: 20000, // while on the socket, what its pushes may have missed is polled this often
    typingMs: 1000, // the visitor's typing is sent at most this often
    typingExpiresMs: 45000, // an operator's typing dots that were never cleared go away after this
  };

  var titleParts = (config.title || "Assistant").split(/\s+[—–-]\s+/);
  var botName = titleParts[0];
  var botSubtitle = titleParts.slice(1).join(" — ");

  // ---------------------------------------------------------------- UI wording (fr / en)

  var WORDING = {
    fr: {
      open: "Ouvrir la discussion avec " + botName,
      close: "Réduire la discussion",
      reset: "Nouvelle conversation",
      language: "Langue de la discussion",
      messages: "Messages de la conversation",
      inputLabel: "Votre question",
      placeholder: "Posez votre question…",
      send: "Envoyer",
      you: "Vous",
      top: "Questions fréquentes",
      previous: "Précédent",
      next: "Suivant",
      slide: "diapositive",
      stepCount: "Étape {n} sur {total}",
      cardCount: "{n} sur {total}",
      more: "En savoir plus",
      helpful: "Cette réponse vous a-t-elle aidé ?",
      yes: "Oui, cette réponse m'a aidé",
      no: "Non, cette réponse ne m'a pas aidé",
      thanks: "Merci pour votre retour !",
      choiceIntroduction: "Pourquoi cette réponse ne vous convient-elle pas ?",
      commentLabel: "Un commentaire ?",
      commentPlaceholder: "Votre commentaire",
      commentSend: "Envoyer",
      commentEnd: "Merci pour votre retour !",
      online: "En ligne",
      offline: "Hors ligne",
      connecting: "Connexion…",
      typing: botName + " écrit…",
      serverDown: "Le service de discussion est momentanément indisponible.",
      sendFailed: "Votre message n'a pas pu être envoyé.",
      feedbackFailed: "Votre avis n'a pas pu être envoyé.",
      retry: "Réessayer",
      noBot: "Ce chatbox n'est pas configuré (attribut data-bot manquant).",
      advisor: "Conseiller",
      anAdvisor: "un conseiller",
      liveWith: "En direct avec {name}",
      queuedStatus: "En attente d'un conseiller",
      operatorTyping: "{name} écrit…",
      operatorTypingAnonymous: "Le conseiller écrit…",
      livePlaceholder: "Écrivez à {name}…",
      queuedPlaceholder: "Écrivez votre message…",
      queueTitle: "Vous êtes n° {position} dans la file d'attente",
      queueTitleUnknown: "Vous êtes dans la file d'attente",
      queueWait: "Attente estimée : environ {minutes} min",
      leaveQueue: "Quitter la file d'attente",
      leaveFailed: "Impossible de quitter la file d'attente pour le moment.",
      unread: "{count} nouveau(x) message(s)",
      survey: "Questionnaire",
      surveyLoading: "Chargement du questionnaire…",
      surveyLoadFailed: "Le questionnaire n'a pas pu être chargé.",
      surveyRequired: "Ce champ est obligatoire.",
      surveyMandatory: "obligatoire",
      surveyChoose: "Choisir…",
      surveySend: "Envoyer",
      surveySent: "Merci, vos réponses ont été envoyées.",
      surveySentBefore: "Questionnaire envoyé.",
      surveySendFailed: "Vos réponses n'ont pas pu être envoyées.",
      menu: "Plus d'options",
      gdprMenu: "Mes données personnelles",
      gdprTitle: "Vos données personnelles",
      gdprIntro: "Recevez par e-mail les données que nous gardons de vos conversations, ou demandez qu'elles soient supprimées. Notre équipe traite votre demande.",
      gdprWhat: "Votre demande",
      gdprGet: "Recevoir mes données",
      gdprDelete: "Supprimer mes données",
      gdprMail: "Votre adresse e-mail",
      gdprSend: "Envoyer la demande",
      gdprSending: "Envoi…",
      gdprBack: "Retour à la conversation",
      gdprChoose: "Cochez au moins une demande.",
      gdprMailInvalid: "Saisissez une adresse e-mail valide, par exemple nom@exemple.fr.",
      gdprFailed: "Votre demande n'a pas pu être envoyée. Réessayez dans un instant.",
      gdprDoneTitle: "Demande enregistrée",
      gdprDone: "Notre équipe vous répondra à l'adresse {mail}.",
      callbackOffer: "Être rappelé par un conseiller",
      callbackIntro: "Laissez votre numéro et un conseiller vous rappellera.",
      callbackPhone: "Numéro de téléphone",
      callbackPlaceholder: "ex. 06 12 34 56 78",
      callbackName: "Votre nom",
      callbackOptional: "facultatif",
      callbackSend: "Rappelez-moi",
      callbackSending: "Envoi…",
      callbackCancel: "Annuler",
      callbackMissing: "Indiquez le numéro de téléphone auquel vous rappeler.",
      callbackInvalid: "Ce n'est pas un numéro de téléphone : 6 à 15 chiffres, précédés de + pour un numéro international.",
      callbackTooMany: "Trop de demandes de rappel sont venues de votre connexion : réessayez dans quelques minutes.",
      callbackFailed: "Votre demande n'a pas pu être envoyée. Réessayez dans un instant.",
      callbackDone: "Merci : un conseiller vous rappellera au {phone}.",
    },
    en: {
      open: "Open the chat with " + botName,
      close: "Minimise the chat",
      reset: "New conversation",
      language: "Chat language",
      messages: "Conversation messages",
      inputLabel: "Your question",
      placeholder: "Ask your question…",
      send: "Send",
      you: "You",
      top: "Frequently asked questions",
      previous: "Previous",
      next: "Next",
      slide: "slide",
      stepCount: "Step {n} of {total}",
      cardCount: "{n} of {total}",
      more: "More",
      helpful: "Was this answer helpful?",
      yes: "Yes, this answer helped me",
      no: "No, this answer did not help me",
      thanks: "Thank you for your feedback!",
      choiceIntroduction: "Why does this answer not suit you?",
      commentLabel: "Any comment?",
      commentPlaceholder: "Your comment",
      commentSend: "Send",
      commentEnd: "Thank you for your feedback!",
      online: "Online",
      offline: "Offline",
      connecting: "Connecting…",
      typing: botName + " is typing…",
      serverDown: "The chat service is unavailable right now.",
      sendFailed: "Your message could not be sent.",
      feedbackFailed: "Your feedback could not be sent.",
      retry: "Retry",
      noBot: "This chatbox is not configured (the data-bot attribute is missing).",
      advisor: "Advisor",
      anAdvisor: "an advisor",
      liveWith: "Live with {name}",
      queuedStatus: "Waiting for an advisor",
      operatorTyping: "{name} is typing…",
      operatorTypingAnonymous: "The advisor is typing…",
      livePlaceholder: "Write to {name}…",
      queuedPlaceholder: "Write your message…",
      queueTitle: "You are number {position} in the queue",
      queueTitleUnknown: "You are in the queue",
      queueWait: "Estimated wait: about {minutes} min",
      leaveQueue: "Leave the queue",
      leaveFailed: "The queue could not be left right now.",
      unread: "{count} new message(s)",
      survey: "Survey",
      surveyLoading: "Loading the survey…",
      surveyLoadFailed: "The survey could not be loaded.",
      surveyRequired: "This field is required.",
      surveyMandatory: "required",
      surveyChoose: "Choose…",
      surveySend: "Send",
      surveySent: "Thank you, your answers have been sent.",
      surveySentBefore: "Survey sent.",
      surveySendFailed: "Your answers could not be sent.",
      menu: "More options",
      gdprMenu: "My personal data",
      gdprTitle: "Your personal data",
      gdprIntro: "Get the data we keep about your conversations by e-mail, or ask for it to be deleted. Our team handles your request.",
      gdprWhat: "Your request",
      gdprGet: "Send me my data",
      gdprDelete: "Delete my data",
      gdprMail: "Your e-mail address",
      gdprSend: "Send the request",
      gdprSending: "Sending…",
      gdprBack: "Back to the conversation",
      gdprChoose: "Tick at least one request.",
      gdprMailInvalid: "Enter a valid e-mail address, such as name@example.com.",
      gdprFailed: "Your request could not be sent. Try again in a moment.",
      gdprDoneTitle: "Request recorded",
      gdprDone: "Our team will answer you at {mail}.",
      callbackOffer: "Ask an advisor to call you back",
      callbackIntro: "Leave your number and an advisor will call you back.",
      callbackPhone: "Phone number",
      callbackPlaceholder: "e.g. +44 20 7946 0000",
      callbackName: "Your name",
      callbackOptional: "optional",
      callbackSend: "Call me back",
      callbackSending: "Sending…",
      callbackCancel: "Cancel",
      callbackMissing: "Please give the phone number to call.",
      callbackInvalid: "This is not a phone number: 6 to 15 digits, with + first for an international one.",
      callbackTooMany: "Too many callback requests came from your connection: try again in a few minutes.",
      callbackFailed: "Your request could not be sent. Try again in a moment.",
      callbackDone: "Thank you: an advisor will call you back on {phone}.",
    },
  };

  // ---------------------------------------------------------------- browser storage

  var store = {
    get: function (key) {
      try {
        return window.localStorage.getItem(key);
      } catch (e) {
        return null;
      }
    },
    set: function (key, value) {
      try {
        window.localStorage.setItem(key, value);
      } catch (e) {
        /* private mode or full storage: the chatbox still works, it only forgets on reload */
      }
    },
    remove: function (key) {
      try {
        window.localStorage.removeItem(key);
      } catch (e) {
        /* see set() */
      }
    },
    json: function (key) {
      try {
        return JSON.parse(store.get(key) || "null");
      } catch (e) {
        return null;
      }
    },
  };
  // The context key is CV5's (client-contract.md §1.6); the others are per bot as well.
  var KEYS = {
    context: "dydu.chatbox.context_" + config.bot,
    client: "dydu.chatbox.clientId_" + config.bot,
    welcome: "dydu.chatbox.welcome_" + config.bot,
    locale: "dydu.chatbox.locale_" + config.bot,
    open: "dydu.chatbox.open_" + config.bot,
    livechat: "dydu.chatbox.livechat_" + config.bot, // {contextId, mode, lastPoll, operator, queue place and wait}
    saml: "dydu.chatbox.saml2_" + config.bot, // the SAML2 token the server gave (client-contract.md §2.4)
    surveys: "dydu.chatbox.surveys_" + config.bot, // ["<contextId> <surveyId>", …]: the surveys answered here
    visit: function () {
      return "DYDU_lastvisitfor_" + config.bot + "_" + state.space + "_" + state.locale;
    },
  };

  function newClientId() {
    var bytes = new Uint8Array(8);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map
      .call(bytes, function (b) {
        return ("0" + b.toString(16)).slice(-2);
      })
      .join("")
      .slice(0, 15);
  }

  var alreadyCame = !!store.get(KEYS.client);
  if (!/^[0-9a-f]{15}$/.test(store.get(KEYS.client) || "")) store.set(KEYS.client, newClientId());

  var state = {
    locale: pickLocale(store.get(KEYS.locale) || config.language || document.documentElement.lang),
    space: config.space,
    languages: ["fr", "en"],
    contextId: store.get(KEYS.context) || "",
    started: false,
    starting: null,
    talks: Promise.resolve(),
    pendingFeedback: null,
    // Each conversation the page starts ("New conversation") gets the next number: what a call sent for an
    // earlier one answers late must not change the current one. A language switch keeps the conversation.
    generation: 0,
  };
  var SUPERSEDED = {}; // thrown through a start-up that a newer conversation replaced

  function pickLocale(value) {
    var code = String(value || "")
      .slice(0, 2)
      .toLowerCase();
    return WORDING[code] ? code : "fr";
  }

  function colon() {
    return state.locale === "fr" ? " : " : ": ";
  }

  function t(key, values) {
    var text = (WORDING[state.locale] || WORDING.fr)[key];
    Object.keys(values || {}).forEach(function (name) {
      text = text.split("{" + name + "}").join(String(values[name]));
    });
    return text;
  }

  function saveContext(id) {
    if (id && id !== state.contextId) {
      state.contextId = id;
      store.set(KEYS.context, id);
    }
  }

  function forgetContext() {
    state.contextId = "";
    store.remove(KEYS.context);
    store.remove(KEYS.welcome);
  }

  // ---------------------------------------------------------------- base64 (every string under `values`)

  function b64decode(text) {
    // Lenient like js-base64's decode, which CV5 uses: URL-safe letters accepted, other characters dropped.
    var clean = String(text).replace(/[-_]/g, function (c) {
      return c === "-" ? "+" : "/";
    });
    clean = clean.replace(/[^A-Za-z0-9+/]/g, "");
    if (clean.length % 4 === 1) clean = clean.slice(0, -1);
    while (clean.length % 4) clean += "=";
    try {
      var binary = window.atob(clean);
      var bytes = new Uint8Array(binary.length);
      for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      return new TextDecoder("utf-8").decode(bytes);
    } catch (e) {
      return text;
    }
  }

  function b64encode(text) {
    var bytes = new TextEncoder().encode(String(text));
    var binary = "";
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return window.btoa(binary);
  }

  function decodeValues(value) {
    if (typeof value === "string") return b64decode(value);
    if (Array.isArray(value)) return value.map(decodeValues);
    if (value && typeof value === "object") {
      var out = {};
      Object.keys(value).forEach(function (key) {
        out[key] = decodeValues(value[key]);
      });
      return out;
    }
    return value;
  }

  // ---------------------------------------------------------------- the servlet API

  function ApiError(message, status, body) {
    this.name = "ApiError";
    this.message = message;
    this.status = status || 0;
    this.body = body || null; // the server's error ({error, code, field}) when it sent JSON
  }
  ApiError.prototype = Object.create(Error.prototype);

  function formBody(fields) {
    var params = new URLSearchParams();
    Object.keys(fields || {}).forEach(function (key) {
      var value = fields[key];
      if (value === undefined) return; // like qs.stringify: undefined keys are left out
      params.append(key, value === null ? "" : String(value));
    });
    return params.toString();
  }

  function call(method, path, fields, timeout) {
    var url = API + path;
    // A bot whose visitors must log in (SAML2) knows them by the token it gave: every call carries it.
    var saml = store.get(KEYS.saml);
    // A string is a body already made (the survey's form, sent as CV5 sends it: not percent-encoded).
    if (typeof fields === "string") fields = saml ? "saml2_info=" + saml + "&" + fields : fields;
    else if (saml) fields = Object.assign({}, fields || {}, { saml2_info: saml });
    var init = { method: method, headers: { Accept: "application/json" }, credentials: "omit", mode: "cors" };
    if (method === "GET") {
      var query = formBody(fields);
      if (query) url += (url.indexOf("?") < 0 ? "?" : "&") + query;
    } else if (fields) {
      init.headers["Content-Type"] = "application/x-www-form-urlencoded; charset=utf-8";
      init.body = typeof fields === "string" ? fields : formBody(fields);
    }
    var generation = state.generation;
    var controller = window.AbortController ? new AbortController() : null;
    if (controller) init.signal = controller.signal;
    var timer = setTimeout(function () {
      if (controller) controller.abort();
    }, timeout || TIMEOUT.other);
    return fetch(url, init)
      .then(
        function (response) {
          return response.text().then(function (text) {
            if (!response.ok) throw new ApiError(path + " answered " + response.status, response.status, errorBody(text));
            return readBody(text, generation);
          });
        },
        function (error) {
          throw new ApiError(path + ": " + (error && error.name === "AbortError" ? "timed out" : "unreachable"));
        }
      )
      .finally(function () {
        clearTimeout(timer);
      });
  }

  function errorBody(text) {
    try {
      var body = JSON.parse(text);
      return body && typeof body === "object" ? body : null;
    } catch (e) {
      return null;
    }
  }

  // What CV5 does with every answer (client-contract.md §1.6): `values` is decoded and returned alone.
  function readBody(text, generation) {
    var body;
    try {
      body = text ? JSON.parse(text) : {};
    } catch (e) {
      return text; // e.g. welcomecall's /*logged*/
    }
    if (!body || typeof body !== "object" || !("values" in body)) return body;
    if (body.values && typeof body.values === "object") {
      if (body.type === "SAML_redirection") return samlLogin(body.values);
      if (typeof body.values.auth === "string" && body.values.auth) store.set(KEYS.saml, samlToken(body.values.auth));
    }
    var values = decodeValues(body.values);
    // An answer to a call of an earlier conversation (the old start-up's history after a language switch)
    // must not bring back its context.
    if (generation === state.generation && values && typeof values === "object" && !Array.isArray(values)) applySideEffects(values);
    return values;
  }

  // SAML2 (client-contract.md §2.4), as CV5 does it: a token is stored decoded when it is base64 and as it
  // came otherwise (the server's tokens hold ':', which atob refuses).
  function samlToken(auth) {
    try {
      return window.atob(auth);
    } catch (e) {
      return auth;
    }
  }

  // The bot answers SAML_redirection until the visitor has logged in with its identity provider: keep
  // the token it gives, go and log in; the server sends the browser back to this page afterwards. The
  // call that asked never completes (the page is leaving).
  var samlLeaving = false;
  function samlLogin(values) {
    // Calls sent at once (the start-up's) are all answered so: the first one leads, once.
    if (!samlLeaving) {
      samlLeaving = true;
      store.set(KEYS.saml, samlToken(samlToken(values.auth || "")));
      window.location.href = b64decode(values.redirection_url) + "&RelayState=" + encodeURI(window.location.href);
    }
    return new Promise(function () {});
  }

  function applySideEffects(values) {
    if (values.guiCSName) state.space = values.guiCSName;
    if (values.contextId) saveContext(values.contextId);
    if (values.language && WORDING[values.language] && values.language !== state.locale) {
      setLocale(values.language);
    }
  }

  function browserName() {
    var ua = navigator.userAgent;
    var m = ua.match(/(Edg|OPR|Firefox|Chrome|Version)\/([\d.]+)/);
    if (!m) return "Unknown";
    var names = { Edg: "Edge", OPR: "Opera", Version: "Safari" };
    return (names[m[1]] || m[1]) + " " + m[2];
  }

  function osName() {
    var p = navigator.userAgentData && navigator.userAgentData.platform;
    return p || (navigator.platform || "Unknown").split(" ")[0];
  }

  function talkFields(text, options) {
    var fields = {
      userInput: text,
      alreadyCame: String(alreadyCame),
      browser: browserName(),
      clientId: store.get(KEYS.client),
      language: state.locale,
      os: osName(),
      qualificationMode: "false",
      space: state.space,
      userUrl: window.location.href,
      solutionUsed: "ASSISTANT",
      variables: "{}",
      mode: SYNCHRON,
    };
    if (options.doNotRegisterInteraction) fields.doNotRegisterInteraction = "true";
    if (options.extra) fields.extraParameters = JSON.stringify(options.extra);
    return fields;
  }

  // One talk; `context` overrides the stored context id (used by #reset#, which must name the old one).
  // Over the socket only with data-transport="websocket" (the socket live chat opens does not carry bot talks).
  function talk(text, options) {
    options = options || {};
    var context = options.context !== undefined ? options.context : state.contextId;
    var fields = talkFields(text, options);
    if (config.websocket && socket.ready()) {
      return socket.talk(fields, context).catch(function () {
        return restTalk(fields, context);
      });
    }
    return restTalk(fields, context);
  }

  function restTalk(fields, context) {
    var path = "chat/talk/" + encodeURIComponent(config.bot) + (context ? "/" + encodeURIComponent(context) : "");
    return call("POST", path, fields, TIMEOUT.talk);
  }

  function feedbackCall(path, fields) {
    fields.contextUUID = state.contextId;
    fields.solutionUsed = "ASSISTANT";
    return call("POST", path + "/" + encodeURIComponent(config.bot), fields);
  }

  // ---------------------------------------------------------------- the websocket (/servlet/chatWs)

  // Bot talks use it with data-transport="websocket" while it is open (REST otherwise); live chat always
  // tries it first, like CV5 (client-contract.md §4.1), and polls when it cannot open or drops.
  var socket = (function () {
    var ws = null;
    var opening = null;
    var waiting = [];
    var pinger = null;

    function url() {
      return config.server.replace(/^http/, "ws") + "/servlet/chatWs";
    }

    // Resolves once the socket is open; rejects if it errors, closes or is not open within `timeout`.
    function open(timeout) {
      if (ws && ws.readyState === 1) return Promise.resolve();
      if (opening) return opening;
      if (!window.WebSocket) return Promise.reject(new ApiError("no websocket in this browser"));
      var current;
      try {
        current = new WebSocket(url());
      } catch (e) {
        return Promise.reject(new ApiError("websocket refused"));
      }
      ws = current;
      opening = new Promise(function (resolve, reject) {
        var timer = setTimeout(function () {
          reject(new ApiError("websocket not open in time"));
          drop(current);
        }, timeout || LIVECHAT.socketOpenMs);
        current.onopen = function () {
          clearTimeout(timer);
          if (ws !== current) return;
          opening = null;
          pinger = setInterval(function () {
            if (current.readyState === 1) current.send("ping");
          }, 55000);
          resolve();
        };
        current.onmessage = function (event) {
          if (ws === current) receive(event.data);
        };
        current.onclose = function () {
          clearTimeout(timer);
          reject(new ApiError("websocket closed")); // nothing happens if it had opened
          if (ws !== current) return;
          forget();
          livechat.socketClosed();
        };
      });
      opening.catch(function () {
        /* the caller decides what a failure means */
      });
      return opening;
    }

    function connect() {
      if (config.websocket) open(LIVECHAT.socketOpenMs);
    }

    function forget() {
      clearInterval(pinger);
      pinger = null;
      ws = null;
      opening = null;
      waiting.splice(0).forEach(function (w) {
        w.reject(new ApiError("websocket closed"));
      });
    }

    function drop(current) {
      if (ws === current) forget();
      try {
        current.close();
      } catch (e) {
        /* closing a socket that never opened */
      }
    }

    function close() {
      if (ws) drop(ws);
    }

    function receive(data) {
      if (data === "pong") return;
      var frame;
      try {
        frame = JSON.parse(data);
      } catch (e) {
        return;
      }
      if (!frame || typeof frame !== "object") return;
      var values = decodeValues(frame.values || {});
      if (!values || typeof values !== "object") return;
      // Live chat's pushes (operator messages, notifications) carry their time; answers to talks do not.
      if (typeof values.pollUpdatedInteractionDate === "number") {
        livechat.event(values);
      } else if (frame.type === "talkResponse") {
        applySideEffects(values);
        if (waiting.length) waiting.shift().resolve(values);
        else livechat.answered(values, null);
      } else if (frame.type === "checkContextAvailabilityResponse") {
        livechat.joined(values);
      }
    }

    // The frames' common parameters (client-contract.md §4.2): every string base64.
    function parameters(extra, context) {
      var common = {
        contextId: b64encode(context === undefined ? state.contextId : context || ""),
        botId: b64encode(config.bot),
        space: b64encode(state.space),
        clientId: b64encode(store.get(KEYS.client) || ""),
        language: b64encode(state.locale),
        solutionUsed: b64encode("ASSISTANT"),
        userUrl: b64encode(window.location.href),
        browser: b64encode(browserName()),
        os: b64encode(osName()),
      };
      return Object.assign(common, extra || {});
    }

    function talkParameters(fields, context) {
      var extra = {
        userInput: b64encode(fields.userInput),
        alreadyCame: alreadyCame,
        contextType: b64encode("Web"),
        qualificationMode: false,
        doNotRegisterInteraction: fields.doNotRegisterInteraction === "true",
        useServerCookieForContext: false,
        disableLanguageDetection: true,
        timestamp: Date.now(),
        extraParameters: {},
      };
      if (fields.extraParameters) {
        var given = JSON.parse(fields.extraParameters);
        Object.keys(given).forEach(function (key) {
          extra.extraParameters[key] = b64encode(given[key]);
        });
      }
      return parameters(extra, context);
    }

    // One frame; false when the socket is not open.
    function frame(type, extra) {
      if (!ws || ws.readyState !== 1) return false;
      try {
        ws.send(JSON.stringify({ type: type, parameters: parameters(extra) }));
        return true;
      } catch (e) {
        return false;
      }
    }

    // A talk whose answer comes back over the socket (the bot's, or leaving the queue).
    function talkOverSocket(fields, context) {
      return new Promise(function (resolve, reject) {
        if (!ws || ws.readyState !== 1) {
          reject(new ApiError("websocket not open"));
          return;
        }
        var entry = { resolve: resolve, reject: reject };
        waiting.push(entry);
        setTimeout(function () {
          var index = waiting.indexOf(entry);
          if (index >= 0) {
            waiting.splice(index, 1);
            reject(new ApiError("websocket talk timed out"));
          }
        }, TIMEOUT.talk);
        ws.send(JSON.stringify({ type: "talk", parameters: talkParameters(fields, context) }));
      });
    }

    // A message to the operator: the server answers nothing (what follows comes as pushes).
    function post(fields) {
      if (!ws || ws.readyState !== 1) return false;
      try {
        ws.send(JSON.stringify({ type: "talk", parameters: talkParameters(fields) }));
        return true;
      } catch (e) {
        return false;
      }
    }

    return {
      connect: connect,
      open: open,
      close: close,
      ready: function () {
        return !!ws && ws.readyState === 1;
      },
      talk: talkOverSocket,
      post: post,
      frame: frame,
    };
  })();

  // ---------------------------------------------------------------- answer HTML: read like CV5, made safe

  var BLOCKED = /^(script|style|link|meta|base|object|embed|applet|frame|frameset|noscript|template|animate|set|animatemotion|animatetransform|handler|listener)$/i;
  var URL_ATTRIBUTE = /^(href|src|action|formaction|xlink:href|data|poster|background|lowsrc|dynsrc|ping)$/i;
  // The only inline handler kept: the rewording links' call to the page-wide reword() (client-contract.md §3).
  var JS_STRING = "'(?:[^'\\\\\\n]|\\\\.)*'|\"(?:[^\"\\\\\\n]|\\\\.)*\"";
  var JS_VALUE = "(?:" + JS_STRING + "|-?\\d+(?:\\.\\d+)?|true|false|null)";
  var JS_KEY = "(?:'[\\w-]+'|\"[\\w-]+\"|[A-Za-z_]\\w*)";
  var REWORD_ONCLICK = new RegExp(
    "^\\s*(?:try\\s*\\{\\s*)?(?:window\\.)?(?:reword|rewordtest)\\(\\s*(?:" +
      JS_STRING +
      ")\\s*(?:,\\s*\\{\\s*(?:" +
      JS_KEY +
      "\\s*:\\s*" +
      JS_VALUE +
      "\\s*,?\\s*)*\\})?\\s*\\)\\s*;?\\s*(?:return\\s+false\\s*;?\\s*)?(?:\\}\\s*catch\\s*\\(\\s*\\w+\\s*\\)\\s*\\{\\s*\\}\\s*)?;?\\s*$"
  );

  function isDangerousUrl(value, tag, name) {
    var compact = String(value)
      .replace(/[\u0000-\u0020\u007f-\u009f]+/g, "")
      .toLowerCase();
    if (/^(javascript|vbscript):/.test(compact)) return true;
    if (/^data:/.test(compact)) return !(tag === "img" && name === "src" && /^data:image\//.test(compact));
    return false;
  }

  function cleanElement(element) {
    var tag = element.tagName.toLowerCase();
    Array.prototype.slice.call(element.attributes).forEach(function (attribute) {
      var name = attribute.name.toLowerCase();
      if (name.indexOf("on") === 0) {
        if (!(name === "onclick" && REWORD_ONCLICK.test(attribute.value))) element.removeAttribute(attribute.name);
      } else if (name === "srcdoc" || (URL_ATTRIBUTE.test(name) && isDangerousUrl(attribute.value, tag, name))) {
        element.removeAttribute(attribute.name);
      }
    });
    if (tag === "a" && element.getAttribute("target") === "_blank") element.setAttribute("rel", "noopener noreferrer");
    if (tag === "iframe") element.setAttribute("sandbox", "allow-scripts allow-popups allow-forms");
    if (tag === "img") element.setAttribute("loading", "lazy");
  }

  function sanitize(html) {
    var template = document.createElement("template"); // inert: nothing loads or runs while we clean
    template.innerHTML = html;
    var walker = document.createTreeWalker(template.content, NodeFilter.SHOW_ELEMENT);
    var doomed = [];
    while (walker.nextNode()) {
      if (BLOCKED.test(walker.currentNode.tagName)) doomed.push(walker.currentNode);
      else cleanElement(walker.currentNode);
    }
    doomed.forEach(function (node) {
      if (node.parentNode) node.parentNode.removeChild(node);
    });
    return template.content;
  }

  // CV5 decodes HTML entities once (client-contract.md §3); here that happens before sanitising.
  function decodeEntitiesOnce(html) {
    var textarea = document.createElement("textarea");
    textarea.innerHTML = html;
    return textarea.value;
  }

  // Several bubbles at every <hr…>, like CV5.
  function answerParts(html) {
    return String(html || "")
      .split(/<hr\b[^>]*>/i)
      .map(function (part) {
        return part.trim();
      })
      .filter(function (part) {
        return part.replace(/<br\s*\/?>|&nbsp;|\s/gi, "") !== "";
      });
  }

  // ---------------------------------------------------------------- rewording links (CV5's handleRewordClicked)

  function isValidUrl(text) {
    try {
      var url = new URL(text);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch (e) {
      return false;
    }
  }

  function handleRewordClicked(text, options) {
    text = String(text || "").trim();
    if (!text) return;
    options = options && typeof options === "object" ? options : {};
    var extra = JSON.parse(JSON.stringify(options));
    var shown = JSON.parse(JSON.stringify(options));
    shown.hide = shown.hide || text.indexOf("_pushcondition_") === 0 || !!shown.fromSurvey;
    if ((extra.type === "redirection" || extra.type === "redirection_newpage") && !isValidUrl(text)) {
      extra.type = shown.type = "redirection_invalidlink";
    }
    var type = shown.type || "";
    var showQuestion =
      !shown.hide &&
      ["redirection", "redirection_newpage", "redirection_invalidlink"].indexOf(type) < 0 &&
      (type.indexOf("redirection") === 0 || type.indexOf("reword") === 0 || type.indexOf("ask") === 0);
    ui.open();
    send(text, { extra: extra, doNotRegisterInteraction: !!options.doNotRegisterInteraction, showQuestion: showQuestion });
  }

  window.reword = handleRewordClicked;
  window.rewordtest = handleRewordClicked; // the alias templates use

  // ---------------------------------------------------------------- DOM helpers

  function h(tag, attributes, children) {
    var element = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (key) {
      var value = attributes[key];
      if (value === null || value === undefined || value === false) return;
      if (key === "text") element.textContent = value;
      else if (key.indexOf("on") === 0) element.addEventListener(key.slice(2), value);
      else element.setAttribute(key, value === true ? "" : value);
    });
    (children || []).forEach(function (child) {
      if (child) element.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return element;
  }

  var ICONS = {
    chat: '<path d="M4 5.5A2.5 2.5 0 0 1 6.5 3h11A2.5 2.5 0 0 1 20 5.5v8a2.5 2.5 0 0 1-2.5 2.5H10l-4.2 3.6c-.5.4-1.3.1-1.3-.6V16A2.5 2.5 0 0 1 4 13.5z"/>',
    close: '<path d="M6 9l6 6 6-6"/>',
    reset: '<path d="M4 12a8 8 0 1 0 2.4-5.7"/><path d="M4 4v4.5h4.5"/>',
    send: '<path d="M4 12l16-8-6 16-2.5-6.5z"/><path d="M11.5 13.5L20 4"/>',
    up: '<path d="M7 10v10H4V10zM7 10l4-7c1.5 0 2.5 1 2.2 2.6L12.6 9H19a2 2 0 0 1 2 2.3l-1.2 7A2 2 0 0 1 17.8 20H7"/>',
    down: '<path d="M7 14V4H4v10zM7 14l4 7c1.5 0 2.5-1 2.2-2.6L12.6 15H19a2 2 0 0 0 2-2.3l-1.2-7A2 2 0 0 0 17.8 4H7"/>',
    alert: '<circle cx="12" cy="12" r="9"/><path d="M12 7.5v5.5M12 16.3v.2"/>',
    check: '<circle cx="12" cy="12" r="9"/><path d="M8.5 12.3l2.4 2.4 4.6-4.9"/>',
    power: '<path d="M12 3.5v7.5"/><path d="M6.7 6.8a7.5 7.5 0 1 0 10.6 0"/>',
    info: '<circle cx="12" cy="12" r="9"/><path d="M12 11v5.3M12 7.8v.2"/>',
    clock: '<circle cx="12" cy="12" r="9"/><path d="M12 7.5V12l3 2"/>',
    transfer: '<path d="M4 8.5h14l-3.5-3.5M20 15.5H6l3.5 3.5"/>',
    more: '<circle cx="12" cy="5.5" r="1"/><circle cx="12" cy="12" r="1"/><circle cx="12" cy="18.5" r="1"/>',
    shield: '<path d="M12 3l7 3v5.2c0 4.4-2.9 8-7 9.8-4.1-1.8-7-5.4-7-9.8V6z"/><path d="M9.2 12.2l2 2 3.8-4"/>',
    back: '<path d="M14.5 6l-6 6 6 6"/>',
    phone: '<path d="M5.5 3.5h3l1.6 4.2-2 1.4a11 11 0 0 0 6.8 6.8l1.4-2 4.2 1.6v3a2 2 0 0 1-2.1 2A16.5 16.5 0 0 1 3.5 5.6a2 2 0 0 1 2-2.1z"/>',
    hourglass:
      '<path d="M6.5 3.5h11M6.5 20.5h11"/><path d="M8 3.5v3a4 4 0 0 0 1.5 3.1L12 12l2.5-2.4A4 4 0 0 0 16 6.5v-3"/>' +
      '<path d="M8 20.5v-3a4 4 0 0 1 1.5-3.1L12 12l2.5 2.4a4 4 0 0 1 1.5 3.1v3"/>',
    headset:
      '<path d="M4.5 14v-2a7.5 7.5 0 0 1 15 0v2"/><rect x="3.5" y="13" width="4" height="6" rx="1.6"/>' +
      '<rect x="16.5" y="13" width="4" height="6" rx="1.6"/><path d="M18.5 19c0 1.4-2 2.3-5 2.3"/>',
  };

  function icon(name) {
    var span = h("span", { class: "dcb-icon", "aria-hidden": "true" });
    span.innerHTML =
      '<svg viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" stroke-width="1.8" ' +
      'stroke-linecap="round" stroke-linejoin="round" focusable="false">' +
      ICONS[name] +
      "</svg>";
    return span;
  }

  function srOnly(text) {
    return h("span", { class: "dcb-sr", text: text });
  }

  // ---------------------------------------------------------------- live chat (client-contract.md §4)

  var LC = {
    SUCCEED: "DMLiveChatConnectionSucceed",
    WAITING: "NAWaitingForOperator",
    LEAVE: "DMLiveChatLeaveQueue",
    VISITOR_MESSAGE: "LCVisitorMessage",
    WRITING: "OperatorWritingStatus",
    ADDED: "DialogAddedOperatorPanel",
    START_POLLING: "StartPolling",
    START_QUEUE: "StartWaitingQueue",
    LEAVE_ACTION: "LeaveWaitingQueue",
    END_POLLING: "EndPolling",
    LEAVE_QUEUE_INPUT: "#livechatleavequeue#",
  };
  var END_TYPES = ["NAAutoCloseDialog", "NAAutoCloseDialogBecauseUserLeft", "OPLiveChatEndByOperator"];

  // §4.1: what starts live chat, what leaves the queue, what ends it.
  function livechatStarts(values) {
    var action = values.specialAction;
    return (
      action === LC.START_POLLING || action === LC.START_QUEUE || (values.typeResponse === LC.SUCCEED && action !== LC.START_QUEUE)
    );
  }

  function leavesQueue(values) {
    return values.typeResponse === LC.LEAVE || values.specialAction === LC.LEAVE_ACTION;
  }

  function livechatEnds(values) {
    return END_TYPES.indexOf(values.typeResponse) >= 0 || values.specialAction === LC.END_POLLING;
  }

  function number(value) {
    var n = Number(value);
    return isFinite(n) && n > 0 ? n : 0;
  }

  // The history's live-chat moments (client-contract.md §2.2 (9)): where live chat started or ended.
  var HISTORY_MODES = { DMLiveChatConnectionSucceed: "live", DMLiveChatConnectionInQueue: "queued", NAWaitingForOperator: "queued" };

  function historyNotice(interaction) {
    var type = interaction.type || interaction.typeResponse || "";
    return !!HISTORY_MODES[type] || type === LC.LEAVE || END_TYPES.indexOf(type) >= 0;
  }

  var livechat = (function () {
    var s = blank();
    var generation = 0; // bumped whenever live chat starts or stops: late answers of older rounds are dropped
    var floor = 0; // events up to this time are shown already (history, or before live chat started)
    var seen = {}; // times of the events shown since
    var pollTimer = null;
    var watchTimer = null;
    var failures = 0;
    var lastUntimed = ""; // an event without its time (never sent by this server) is shown once
    var unread = 0;
    var readPending = false;
    var typing = { sent: "", at: 0, timer: null };

    function blank() {
      // lastPoll: the newest event shown; polled: up to where the poll confirmed that nothing is missing.
      return { mode: "off", transport: "", lastPoll: 0, polled: 0, operator: "", position: 0, wait: 0, leaving: false };
    }

    function save() {
      if (s.mode === "off") {
        store.remove(KEYS.livechat);
        return;
      }
      store.set(
        KEYS.livechat,
        JSON.stringify({
          contextId: state.contextId,
          mode: s.mode,
          transport: s.transport,
          lastPoll: s.lastPoll,
          operator: s.operator,
          queuePosition: s.position,
          estimatedWaitingDuration: s.wait,
        })
      );
    }

    // What this browser knew of the dialog's live chat before the reload (none for another dialog).
    function stored() {
      var saved = store.json(KEYS.livechat);
      if (!saved || !state.contextId || saved.contextId !== state.contextId) return null;
      if (saved.mode !== "live" && saved.mode !== "queued") return null;
      return saved;
    }

    function render() {
      ui.renderLivechat();
    }

    function setMode(mode) {
      s.mode = mode;
      if (mode !== "queued") s.leaving = false;
      save();
      render();
    }

    // An answer handed the dialog over: its text is a notice (§4.1), then the transport opens.
    function start(values, into) {
      var queued = values.specialAction === LC.START_QUEUE;
      if (s.mode !== "off") {
        // Already in live chat (the server told this chatbox again): only a change of state is news.
        if (queued) {
          queueNews(values);
        } else if (s.mode === "queued") {
          if (operatorOf(values)) s.operator = operatorOf(values);
          addNotice(values.text, values.typeResponse, { into: into });
          setMode("live");
        }
        return;
      }
      generation++;
      seen = {};
      s = blank();
      s.lastPoll = s.polled = floor = number(values.serverTime) || number(values.pollUpdatedInteractionDate);
      s.operator = operatorOf(values);
      addNotice(values.text, values.typeResponse, { into: into });
      if (queued) {
        s.position = number(values.queuePosition);
        s.wait = number(values.estimatedWaitingDuration);
      }
      setMode(queued ? "queued" : "live");
      connect();
    }

    // After a reload: the history is shown; live chat goes on from where the history and the browser left it.
    function resume(interactions) {
      var saved = stored();
      var historyMode = "off";
      var historyAt = 0;
      var lastShown = 0;
      var operator = "";
      (interactions || []).forEach(function (interaction) {
        var type = interaction.type || "";
        var at = number(interaction.pollUpdatedInteractionDate) || number(interaction.timestamp);
        if (interaction.human === true || historyNotice(interaction)) lastShown = Math.max(lastShown, at);
        // An operator's message names them in fromDetail, a live-chat notice (joined, transferred) in operatorName.
        var named = interaction.human === true ? interaction.fromDetail : interaction.operatorName;
        if (named) operator = named;
        if (historyNotice(interaction)) {
          historyMode = HISTORY_MODES[type] || "off";
          historyAt = at;
        }
      });
      var mode = historyMode;
      // The browser's state is newer than the history's last live-chat moment (e.g. sent back to the queue).
      if (saved && number(saved.lastPoll) >= historyAt) mode = saved.mode;
      if (mode === "off") {
        store.remove(KEYS.livechat);
        return;
      }
      generation++;
      seen = {};
      s = blank();
      s.lastPoll = s.polled = floor = Math.max(number(saved && saved.lastPoll), lastShown);
      s.operator = operator || (saved && saved.operator) || "";
      if (saved) {
        s.position = number(saved.queuePosition);
        s.wait = number(saved.estimatedWaitingDuration);
      }
      setMode(mode);
      connect();
    }

    function stop() {
      generation++;
      clearTimeout(pollTimer);
      clearTimeout(watchTimer);
      clearTimeout(typing.timer);
      typing = { sent: "", at: 0, timer: null };
      showOperatorTyping(false);
      s = blank();
      readPending = false;
      store.remove(KEYS.livechat);
      if (!config.websocket) socket.close(); // CV5 closes the tunnel at the end of live chat
      render();
    }

    // ------------------------------------------------------------ transports

    function connect() {
      var mine = generation;
      s.transport = "";
      socket.open(LIVECHAT.socketOpenMs).then(
        function () {
          if (mine !== generation || s.mode === "off") return;
          s.transport = "websocket";
          save();
          render();
          // Any frame naming the dialog puts the socket in the dialog's group; its answer means "joined".
          if (!socket.frame("checkContextAvailability", {})) startPolling();
        },
        function () {
          if (mine === generation && s.mode !== "off") startPolling();
        }
      );
    }

    // The socket follows the dialog now: what was pushed before it joined is fetched once over REST.
    function joined(values) {
      if (s.mode === "off" || s.transport !== "websocket") return;
      if (values && values.isContextStillAvailable === false) {
        stop();
        return;
      }
      drain().then(watch);
    }

    // A push the channel layer failed to deliver is still stored: while on the socket, a slow poll makes
    // sure nothing is missed (what the socket showed already is not shown twice).
    function watch() {
      clearTimeout(watchTimer);
      var mine = generation;
      watchTimer = setTimeout(function () {
        if (mine !== generation || s.transport !== "websocket") return;
        drain().then(watch);
      }, LIVECHAT.safetyPollMs);
    }

    function socketClosed() {
      if (s.mode !== "off" && s.transport === "websocket") startPolling();
    }

    function poll(cursor) {
      return call(
        "POST",
        "chat/poll/last/" + encodeURIComponent(config.bot),
        {
          contextUuid: state.contextId,
          lastPoll: String(cursor),
          solutionUsed: "LIVECHAT",
          format: "JSon",
          language: state.locale,
          space: state.space,
        },
        TIMEOUT.other
      ).then(function (result) {
        var empty = !result || typeof result !== "object" || !Object.keys(result).length;
        return empty ? null : result;
      });
    }

    // Every event after lastPoll, one poll each, until there is none (with its own cursor, so that pushes
    // arriving meanwhile neither hide nor repeat any).
    function drain() {
      var mine = generation;
      var cursor = s.polled;
      var rounds = 0;
      function next() {
        return poll(cursor).then(function (event) {
          if (mine !== generation || !event) return;
          var at = number(event.pollUpdatedInteractionDate);
          event_(event);
          if (!at || at <= cursor || ++rounds >= 100) return;
          cursor = at;
          if (cursor > s.polled) s.polled = cursor;
          return next();
        });
      }
      return next().catch(function () {
        /* the regular transport carries on */
      });
    }

    function startPolling() {
      if (s.mode === "off") return;
      s.transport = "polling";
      save();
      render();
      schedule(0);
    }

    function schedule(delay) {
      clearTimeout(pollTimer);
      var mine = generation;
      pollTimer = setTimeout(function () {
        if (mine !== generation || s.transport !== "polling") return;
        poll(s.polled).then(
          function (event) {
            if (mine !== generation) return;
            if (failures) ui.setStatus("online");
            failures = 0;
            var at = event ? number(event.pollUpdatedInteractionDate) : 0;
            var news = at > s.polled;
            if (news) s.polled = at;
            if (event) event_(event);
            // One event per poll: with news, ask again at once for the next one.
            if (mine === generation && s.transport === "polling") schedule(news ? 100 : LIVECHAT.pollMs);
          },
          function (error) {
            if (mine !== generation) return;
            if (error && error.status === 404) {
              stop(); // the dialog is gone: so is its live chat
              return;
            }
            failures++;
            if (failures > 1) ui.setStatus("offline");
            schedule(Math.min(LIVECHAT.pollMs * Math.pow(2, failures - 1), 30000));
          }
        );
      }, delay);
    }

    // ------------------------------------------------------------ what the server sends

    // Who the operator is: a message names them in fromDetail, a notice in operatorName (a notice with
    // fromDetail would be a message for CV5's polling, client-contract.md §4.3).
    function operatorOf(values) {
      return values.operatorName || values.fromDetail || "";
    }

    // One pushed or polled event (operator message or notification), classified like CV5 (§4.2, §4.3).
    function event_(values) {
      if (s.mode === "off") return;
      var at = number(values.pollUpdatedInteractionDate);
      if (at) {
        if (at <= floor || seen[at]) return;
        seen[at] = true;
        if (at > s.lastPoll) s.lastPoll = at;
      } else {
        var signature = JSON.stringify(values);
        if (signature === lastUntimed) return;
        lastUntimed = signature;
      }
      var code = values.code || "";
      if (leavesQueue(values) || livechatEnds(values)) {
        addNotice(values.text, values.typeResponse || code);
        stop();
        return;
      }
      if (code === LC.WRITING) {
        if (operatorOf(values)) s.operator = operatorOf(values);
        showOperatorTyping(!!values.text && s.mode === "live");
      } else if (code === LC.ADDED) {
        if (operatorOf(values)) s.operator = operatorOf(values);
        addNotice(values.text, code);
        setMode("live");
      } else if (code === LC.WAITING || values.specialAction === LC.START_QUEUE) {
        showOperatorTyping(false);
        queueNews(values);
      } else if (code) {
        if (operatorOf(values)) s.operator = operatorOf(values); // connected, transferred: who is there now
        if (code !== "OperatorConnected") showOperatorTyping(false);
        addNotice(values.text, code);
      } else if (values.text) {
        showOperatorTyping(false);
        if (values.human === true || values.fromDetail) {
          if (values.fromDetail) s.operator = values.fromDetail;
          addOperatorBubble(values);
          if (s.mode === "queued") s.mode = "live";
          arrived();
        } else {
          addAnswer(values);
        }
      }
      save();
      render();
    }

    function queueNews(values) {
      s.position = number(values.queuePosition) || s.position;
      if (values.estimatedWaitingDuration !== undefined) s.wait = number(values.estimatedWaitingDuration);
      setMode("queued");
    }

    // An answer to a talk made during live chat (REST, or a socket answer nobody waited for).
    function answered(values, into) {
      if (!values || typeof values !== "object") return;
      if (s.mode === "off") {
        // Nobody waited for it: only a late start of live chat matters.
        if (livechatStarts(values) && !leavesQueue(values)) start(values, into);
        return;
      }
      if (values.typeResponse === LC.VISITOR_MESSAGE) return; // passed to the operator: nothing to show
      if (leavesQueue(values) || livechatEnds(values)) {
        addNotice(values.text, values.typeResponse || values.specialAction);
        stop();
        return;
      }
      if (livechatStarts(values)) {
        start(values, into);
        return;
      }
      if (!values.text) return;
      // The bot answered: the server holds no live chat for this dialog any more. Whatever ended it comes
      // first, then live chat stops here too.
      var mine = generation;
      drain().then(function () {
        if (mine === generation && s.mode !== "off") stop();
        addAnswer(values);
      });
    }

    // ------------------------------------------------------------ what the visitor does

    // A message to the operator: over the socket (no answer comes back) or a REST talk in polling mode.
    function send(text) {
      var fields = talkFields(text, {});
      if (s.transport === "websocket" && socket.post(fields)) return Promise.resolve(null);
      fields.mode = POLLING;
      return restTalk(fields, state.contextId);
    }

    function leaveQueue() {
      if (s.mode !== "queued" || s.leaving) return;
      s.leaving = true;
      render();
      var mine = generation;
      var fields = talkFields(LC.LEAVE_QUEUE_INPUT, {});
      var over = s.transport === "websocket" && socket.ready() ? socket.talk(fields, state.contextId) : Promise.reject(null);
      over
        .catch(function () {
          fields.mode = POLLING;
          return restTalk(fields, state.contextId);
        })
        .then(
          function (values) {
            if (mine === generation) answered(values, null);
          },
          function () {
            if (mine !== generation) return;
            s.leaving = false;
            render();
            ui.showAlert(t("leaveFailed"));
          }
        );
    }

    // The visitor's typing, at most once a second; an empty box says they stopped (§2.2 (16), §4.2).
    function visitorTyping() {
      if (s.mode !== "live") return;
      clearTimeout(typing.timer);
      var text = ui.els.input.value.trim() ? ui.els.input.value : "";
      var wait = text ? Math.max(0, LIVECHAT.typingMs - (Date.now() - typing.at)) : 0;
      typing.timer = setTimeout(function () {
        var current = ui.els.input.value.trim() ? ui.els.input.value : "";
        if (current === typing.sent || s.mode !== "live") return;
        typing.sent = current;
        typing.at = Date.now();
        sendTyping(!!current, current);
      }, wait);
    }

    function sendTyping(on, text) {
      if (s.transport === "websocket" && socket.frame("typing", { typing: on, content: b64encode(text) })) return;
      call("POST", "chat/typing/" + encodeURIComponent(config.bot), {
        contextId: state.contextId,
        typing: String(on),
        content: b64encode(text),
      }).catch(function () {
        /* the operator misses a typing hint, nothing more */
      });
    }

    // Operator messages count as read when shown in an open panel of a visible page.
    function arrived() {
      readPending = true;
      if (!ui.isOpen()) ui.setUnread(++unread);
      seen_();
    }

    function seen_() {
      if (ui.isOpen()) unread = 0;
      if (!readPending || s.mode === "off" || !ui.isOpen() || document.visibilityState === "hidden") return;
      readPending = false;
      if (s.transport === "websocket" && socket.frame("reading", { reading: true, content: "" })) return;
      call("POST", "chat/reading/" + encodeURIComponent(config.bot), { contextId: state.contextId, reading: "true" }).catch(
        function () {
          /* see sendTyping */
        }
      );
    }

    document.addEventListener("visibilitychange", seen_);

    return {
      mode: function () {
        return s.mode;
      },
      transport: function () {
        return s.mode === "off" ? "" : s.transport;
      },
      operator: function () {
        return s.operator;
      },
      queue: function () {
        return { position: s.position, wait: s.wait, leaving: s.leaving };
      },
      pending: function () {
        return !!stored();
      },
      starts: livechatStarts,
      start: start,
      resume: resume,
      stop: stop,
      event: event_,
      answered: answered,
      joined: joined,
      socketClosed: socketClosed,
      send: send,
      leaveQueue: leaveQueue,
      visitorTyping: visitorTyping,
      seen: seen_,
    };
  })();

  // ---------------------------------------------------------------- the widget

  var ui = (function () {
    var host = h("div", { id: "dydu-chatbox", "data-bot": config.bot, "data-livechat": "off" });
    var root = host.attachShadow ? host.attachShadow({ mode: "open" }) : host;
    var shell = h("div", { class: "dcb", style: "visibility:hidden" });
    if (config.accent) shell.style.setProperty("--dcb-accent", config.accent);
    var stylesheet = h("link", { rel: "stylesheet", href: new URL("chatbox.css", scriptUrl).href });
    // Shown once styled, so the page never flashes raw markup.
    stylesheet.addEventListener("load", reveal);
    stylesheet.addEventListener("error", reveal);
    function reveal() {
      shell.style.visibility = "";
    }

    var els = {};
    els.launcher = h("button", { type: "button", class: "dcb-launcher", "aria-controls": "dcb-panel", "aria-expanded": "false" }, [
      icon("chat"),
      icon("close"),
      (els.launcherLabel = srOnly("")),
      (els.badge = h("span", { class: "dcb-badge", hidden: true })),
    ]);
    els.avatar = h("span", { class: "dcb-avatar", "aria-hidden": "true", text: botName.charAt(0).toUpperCase() });
    els.status = h("span", { class: "dcb-status", "data-state": "connecting" });
    els.langGroup = h("div", { class: "dcb-langs", role: "group" });
    els.close = h("button", { type: "button", class: "dcb-tool", "data-action": "close" }, [icon("close"), (els.closeLabel = srOnly(""))]);
    // The menu (CV5's "more options"): a new conversation, the visitor's personal data.
    els.more = h("button", { type: "button", class: "dcb-tool", "data-action": "menu", "aria-haspopup": "menu", "aria-expanded": "false", "aria-controls": "dcb-menu" }, [
      icon("more"),
      (els.moreLabel = srOnly("")),
    ]);
    els.reset = h("button", { type: "button", class: "dcb-menu-item", role: "menuitem", "data-action": "reset" }, [icon("reset"), (els.resetLabel = h("span"))]);
    els.gdprItem = h("button", { type: "button", class: "dcb-menu-item", role: "menuitem", "data-action": "gdpr" }, [icon("shield"), (els.gdprItemLabel = h("span"))]);
    els.menu = h("div", { id: "dcb-menu", class: "dcb-menu", role: "menu", hidden: true }, [els.reset, els.gdprItem]);
    els.header = h("header", { class: "dcb-header" }, [
      els.avatar,
      h("div", { class: "dcb-heading" }, [
        h("h2", { class: "dcb-title", id: "dcb-title", text: botName }),
        h("p", { class: "dcb-subtitle" }, [botSubtitle ? h("span", { text: botSubtitle }) : null, els.status]),
      ]),
      h("div", { class: "dcb-tools" }, [els.langGroup, els.more, els.close, els.menu]),
    ]);
    els.log = h("div", { class: "dcb-log", role: "log", "aria-live": "polite", "aria-relevant": "additions", tabindex: "0" });
    els.alert = h("div", { class: "dcb-alert", role: "alert", hidden: true });
    // Live chat's waiting queue: the visitor's place, the estimated wait and a way out.
    els.queueTitle = h("p", { class: "dcb-queue-title" });
    els.queueWait = h("p", { class: "dcb-queue-wait" });
    els.leave = h("button", { type: "button", class: "dcb-queue-leave", "data-testid": "leave-queue" });
    els.queue = h("div", { class: "dcb-queue", role: "status", "data-testid": "queue-banner", hidden: true }, [
      h("span", { class: "dcb-queue-icon" }, [icon("hourglass")]),
      h("div", { class: "dcb-queue-text" }, [els.queueTitle, els.queueWait]),
      els.leave,
    ]);
    els.input = h("textarea", { id: "dcb-input", class: "dcb-input", rows: "1", maxlength: "600", autocomplete: "off" });
    els.inputLabel = h("label", { for: "dcb-input", class: "dcb-sr" });
    els.send = h("button", { type: "submit", class: "dcb-send", disabled: true }, [icon("send"), (els.sendLabel = srOnly(""))]);
    els.form = h("form", { class: "dcb-form", novalidate: true }, [els.inputLabel, els.input, els.send]);
    // A sheet over the conversation (the personal-data form): the log and the input wait behind it.
    els.sheet = h("div", { class: "dcb-sheet", hidden: true });
    els.panel = h("section", { id: "dcb-panel", class: "dcb-panel", "aria-labelledby": "dcb-title", hidden: true }, [
      els.header,
      els.sheet,
      els.log,
      els.alert,
      els.queue,
      els.form,
    ]);
    shell.appendChild(els.panel);
    shell.appendChild(els.launcher);
    root.appendChild(stylesheet);
    root.appendChild(shell);

    function label() {
      els.launcherLabel.textContent = t("open");
      els.launcher.setAttribute("title", t("open"));
      els.resetLabel.textContent = t("reset");
      els.closeLabel.textContent = t("close");
      els.close.setAttribute("title", t("close"));
      els.moreLabel.textContent = t("menu");
      els.more.setAttribute("title", t("menu"));
      els.menu.setAttribute("aria-label", t("menu"));
      els.gdprItemLabel.textContent = t("gdprMenu");
      els.langGroup.setAttribute("aria-label", t("language"));
      els.log.setAttribute("aria-label", t("messages"));
      els.inputLabel.textContent = t("inputLabel");
      els.sendLabel.textContent = t("send");
      els.send.setAttribute("title", t("send"));
      els.leave.textContent = t("leaveQueue");
      shell.setAttribute("lang", state.locale);
      Array.prototype.forEach.call(els.langGroup.children, function (button) {
        button.setAttribute("aria-pressed", String(button.value === state.locale));
      });
      renderLivechat();
    }

    var connection = "connecting";

    function setStatus(name) {
      connection = name;
      renderStatus();
    }

    // While live, the header says with whom; the connection state wins when it is lost.
    function renderStatus() {
      var mode = livechat.mode();
      var name = connection;
      var text = t(connection);
      if (connection !== "offline" && mode === "live") {
        name = "live";
        text = t("liveWith", { name: livechat.operator() || t("anAdvisor") });
      } else if (connection !== "offline" && mode === "queued") {
        name = "queued";
        text = t("queuedStatus");
      }
      els.status.setAttribute("data-state", name);
      els.status.textContent = text;
    }

    // Everything live chat changes in the frame around the log: hooks, header, placeholder, queue banner.
    function renderLivechat() {
      var mode = livechat.mode();
      var transport = livechat.transport();
      host.setAttribute("data-livechat", mode);
      if (mode !== "off" && transport) host.setAttribute("data-transport", transport);
      else host.removeAttribute("data-transport");
      shell.classList.toggle("dcb-lc-live", mode === "live");
      shell.classList.toggle("dcb-lc-queued", mode === "queued");
      var operator = livechat.operator();
      els.avatar.textContent = (mode === "live" && operator ? operator : botName).charAt(0).toUpperCase();
      var placeholder = t("placeholder");
      if (mode === "live") placeholder = t("livePlaceholder", { name: operator || t("anAdvisor") });
      else if (mode === "queued") placeholder = t("queuedPlaceholder");
      els.input.setAttribute("placeholder", placeholder);
      var queue = livechat.queue();
      els.queue.hidden = mode !== "queued" || sheetOpen;
      els.queueTitle.textContent = queue.position > 0 ? t("queueTitle", { position: queue.position }) : t("queueTitleUnknown");
      // Minutes rounded like the server's own queue sentence (at least one).
      els.queueWait.textContent = t("queueWait", { minutes: Math.max(1, Math.round((queue.wait || 0) / 60)) });
      els.queueWait.hidden = !(queue.wait > 0);
      els.leave.disabled = queue.leaving;
      renderStatus();
    }

    function openMenu() {
      els.menu.hidden = false;
      els.more.setAttribute("aria-expanded", "true");
      els.menu.firstChild.focus();
    }

    function closeMenu(focusButton) {
      if (els.menu.hidden) return;
      els.menu.hidden = true;
      els.more.setAttribute("aria-expanded", "false");
      if (focusButton) els.more.focus();
    }

    var sheetOpen = false;

    // Shows `content` instead of the conversation until hideSheet(); `focus` gets the keyboard.
    function showSheet(content, focus) {
      sheetOpen = true;
      els.sheet.innerHTML = "";
      els.sheet.appendChild(content);
      els.sheet.hidden = false;
      els.log.hidden = els.form.hidden = els.queue.hidden = true;
      if (focus) focus.focus({ preventScroll: true });
    }

    function hideSheet() {
      if (!sheetOpen) return;
      sheetOpen = false;
      els.sheet.hidden = true;
      els.sheet.innerHTML = "";
      els.log.hidden = els.form.hidden = false;
      renderLivechat();
      scrollDown();
      els.input.focus({ preventScroll: true });
    }

    function setUnread(count) {
      els.badge.hidden = !count;
      els.badge.textContent = count ? String(count) : "";
      els.badge.setAttribute("aria-label", t("unread", { count: count }));
    }

    function open() {
      if (!els.panel.hidden) return;
      els.panel.hidden = false;
      shell.classList.add("dcb-is-open");
      els.launcher.setAttribute("aria-expanded", "true");
      store.set(KEYS.open, "1");
      setUnread(0);
      startConversation();
      livechat.seen();
      setTimeout(function () {
        els.input.focus({ preventScroll: true });
      }, 30);
      scrollDown();
    }

    function close() {
      els.panel.hidden = true;
      shell.classList.remove("dcb-is-open");
      els.launcher.setAttribute("aria-expanded", "false");
      store.remove(KEYS.open);
      els.launcher.focus();
    }

    function scrollDown() {
      els.log.scrollTop = els.log.scrollHeight;
    }

    function showAlert(message, retry) {
      els.alert.innerHTML = "";
      els.alert.appendChild(icon("alert"));
      els.alert.appendChild(h("span", { class: "dcb-alert-text", text: message }));
      if (retry) {
        els.alert.appendChild(
          h("button", {
            type: "button",
            class: "dcb-retry",
            text: t("retry"),
            onclick: function () {
              hideAlert();
              retry();
            },
          })
        );
      }
      els.alert.hidden = false;
    }

    function hideAlert() {
      els.alert.hidden = true;
      els.alert.innerHTML = "";
    }

    function autosize() {
      els.input.style.height = "auto";
      els.input.style.height = Math.min(els.input.scrollHeight, 120) + "px";
      els.send.disabled = !els.input.value.trim();
    }

    els.launcher.addEventListener("click", function () {
      if (els.panel.hidden) open();
      else close();
    });
    els.close.addEventListener("click", close);
    els.reset.addEventListener("click", function () {
      closeMenu(false);
      newConversation();
    });
    els.panel.addEventListener("keydown", function (event) {
      if (event.key !== "Escape") return;
      if (!els.menu.hidden) closeMenu(true);
      else if (sheetOpen) hideSheet();
      else close();
    });
    els.more.addEventListener("click", function () {
      if (els.menu.hidden) openMenu();
      else closeMenu(false);
    });
    els.gdprItem.addEventListener("click", function () {
      closeMenu(false);
      personalData.open();
    });
    // The arrows move between the menu's items, as in any menu.
    els.menu.addEventListener("keydown", function (event) {
      var items = Array.prototype.slice.call(els.menu.children);
      var step = { ArrowDown: 1, ArrowUp: -1 }[event.key];
      if (!step) return;
      event.preventDefault();
      var at = items.indexOf(root.activeElement || document.activeElement);
      items[(at + step + items.length) % items.length].focus();
    });
    // A click anywhere else closes the menu (inside the chatbox, or on the page around it).
    root.addEventListener("click", function (event) {
      if (!els.menu.contains(event.target) && !els.more.contains(event.target)) closeMenu(false);
    });
    document.addEventListener("click", function (event) {
      if (event.target !== host) closeMenu(false);
    });
    els.input.addEventListener("input", function () {
      autosize();
      livechat.visitorTyping();
    });
    els.leave.addEventListener("click", function () {
      livechat.leaveQueue();
    });
    els.input.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        els.form.requestSubmit ? els.form.requestSubmit() : submit(event);
      }
    });
    els.form.addEventListener("submit", submit);
    function submit(event) {
      event.preventDefault();
      var text = els.input.value.trim();
      if (!text) return;
      els.input.value = "";
      autosize();
      livechat.visitorTyping();
      ask(text);
    }
    // Links written href="#" (rewordings) must never move the page, even if their handler failed.
    els.log.addEventListener("click", function (event) {
      var link = event.target.closest ? event.target.closest("a") : null;
      if (link && link.getAttribute("href") === "#") event.preventDefault();
    });

    // When something takes room under the log (the queue banner, a taller input), its end stays in sight.
    if (window.ResizeObserver) {
      var logHeight = 0;
      new ResizeObserver(function () {
        var height = els.log.clientHeight;
        if (height && height < logHeight) scrollDown();
        logHeight = height;
      }).observe(els.log);
    }

    label();
    if (document.body) document.body.appendChild(host);
    else
      document.addEventListener("DOMContentLoaded", function () {
        document.body.appendChild(host);
      });

    return {
      els: els,
      open: open,
      close: close,
      label: label,
      setStatus: setStatus,
      renderLivechat: renderLivechat,
      setUnread: setUnread,
      isOpen: function () {
        return !els.panel.hidden;
      },
      scrollDown: scrollDown,
      showAlert: showAlert,
      hideAlert: hideAlert,
      showSheet: showSheet,
      hideSheet: hideSheet,
    };
  })();

  // ---------------------------------------------------------------- messages

  function addUserBubble(text, into) {
    var row = h("div", { class: "dcb-row dcb-row-user" }, [
      h("div", { class: "dcb-bubble dcb-bubble-user", "data-from": "user" }, [
        srOnly(t("you") + colon()),
        h("span", { class: "dcb-text", text: text }),
      ]),
    ]);
    (into || ui.els.log).appendChild(row);
    keepTypingLast();
    ui.scrollDown();
    return row;
  }

  function initial(name) {
    return String(name || "?").trim().charAt(0).toUpperCase() || "?";
  }

  // An operator's message: the name above, another avatar and colour than the bot's (client-contract.md §4).
  function addOperatorBubble(values, options) {
    options = options || {};
    var name = values.fromDetail || livechat.operator() || t("advisor");
    var row = h("div", {
      class: "dcb-row dcb-row-operator",
      "data-type": values.typeResponse || values.type || null,
      "data-operator": name,
    });
    var stack = h("div", { class: "dcb-stack" }, [
      h("p", { class: "dcb-author", "aria-hidden": "true" }, [
        h("span", { class: "dcb-author-name", text: name }),
        h("span", { class: "dcb-author-role", text: t("advisor") }),
      ]),
    ]);
    answerParts(decodeEntitiesOnce(values.text || "")).forEach(function (part, index) {
      var bubble = h("div", { class: "dcb-bubble dcb-bubble-operator", "data-from": "operator" }, [
        index === 0 ? srOnly(name + " (" + t("advisor").toLowerCase() + ")" + colon()) : null,
      ]);
      bubble.appendChild(sanitize(part));
      stack.appendChild(bubble);
    });
    row.appendChild(h("span", { class: "dcb-avatar dcb-avatar-small dcb-avatar-operator", "aria-hidden": "true", text: initial(name) }));
    row.appendChild(stack);
    (options.into || ui.els.log).appendChild(row);
    keepTypingLast();
    ui.scrollDown();
    return row;
  }

  // Live chat's notices (started, queued, transferred, ended…): centred and discreet, not bubbles.
  var NOTICE_ICONS = {
    DMLiveChatConnectionSucceed: "check",
    DialogAddedOperatorPanel: "check",
    OperatorConnected: "check",
    DMLiveChatConnectionInQueue: "hourglass",
    NAWaitingForOperator: "hourglass",
    DialogTransferredManually: "transfer",
    DialogTransferredAutomatically: "transfer",
    AlmostTimedOut: "clock",
    OperatorDisconnected: "alert",
    OperatorBusy: "clock",
  };

  function addNotice(html, code, options) {
    options = options || {};
    if (!answerParts(html || "").length) return null;
    var end = livechatEnds({ typeResponse: code }) || code === LC.LEAVE || code === LC.LEAVE_ACTION || code === LC.END_POLLING;
    var name = NOTICE_ICONS[code] || (end ? "power" : "info");
    var text = h("div", { class: "dcb-notice-text" }, [sanitize(decodeEntitiesOnce(html))]);
    var notice = h(
      "div",
      {
        class: "dcb-notice" + (end ? " dcb-notice-end" : name === "check" ? " dcb-notice-start" : ""),
        "data-testid": "livechat-notice",
        "data-code": code || null,
      },
      [icon(name), text]
    );
    (options.into || ui.els.log).appendChild(notice);
    keepTypingLast();
    ui.scrollDown();
    return notice;
  }

  // The operator's "… is typing" dots, kept at the end of the log while shown.
  var operatorTyping = null;
  var operatorTypingTimer = null;

  function showOperatorTyping(on) {
    clearTimeout(operatorTypingTimer);
    if (!on) {
      if (operatorTyping && operatorTyping.parentNode) operatorTyping.parentNode.removeChild(operatorTyping);
      operatorTyping = null;
      return;
    }
    var name = livechat.operator();
    var label = name ? t("operatorTyping", { name: name }) : t("operatorTypingAnonymous");
    if (!operatorTyping) {
      operatorTyping = h("div", { class: "dcb-row dcb-row-operator dcb-typing dcb-operator-typing", "data-testid": "operator-typing" });
    }
    operatorTyping.innerHTML = "";
    operatorTyping.appendChild(h("span", { class: "dcb-avatar dcb-avatar-small dcb-avatar-operator", "aria-hidden": "true", text: initial(name || t("advisor")) }));
    operatorTyping.appendChild(
      h("div", { class: "dcb-stack" }, [
        h("div", { class: "dcb-bubble dcb-bubble-operator", "aria-hidden": "true" }, [h("i"), h("i"), h("i")]),
        h("span", { class: "dcb-typing-label", text: label }),
      ])
    );
    ui.els.log.appendChild(operatorTyping);
    ui.scrollDown();
    operatorTypingTimer = setTimeout(function () {
      showOperatorTyping(false);
    }, LIVECHAT.typingExpiresMs);
  }

  function keepTypingLast() {
    if (operatorTyping && operatorTyping.parentNode && operatorTyping.nextSibling) ui.els.log.appendChild(operatorTyping);
  }

  // ---------------------------------------------------------------- rich answers (client-contract.md §3)

  var TEMPLATE = { quickReply: "dydu_quick_reply_001", product: "dydu_product_001", carousel: "dydu_carousel_001" };
  var CAROUSEL_CARDS = 5; // CV5 reads cards 1 to 5

  // templateData is a JSON string once decoded; the chatbox JSON.parses it (DialogContext).
  function templateFields(values) {
    if ([TEMPLATE.quickReply, TEMPLATE.product, TEMPLATE.carousel].indexOf(values.templateName) < 0) return null;
    try {
      var fields = JSON.parse(values.templateData || "");
      return fields && typeof fields === "object" && !Array.isArray(fields) ? fields : null;
    } catch (e) {
      return null;
    }
  }

  // Template texts are HTML set as is, without the entity decoding of answer texts (CV5's templates).
  function templateHtml(className, html) {
    var element = h("div", { class: className });
    element.appendChild(sanitize(String(html)));
    return element;
  }

  function quickReplies(fields) {
    var list = h("div", { class: "dcb-quick", role: "group" });
    Object.keys(fields)
      .sort() // CV5's order: button1 … button9
      .forEach(function (key) {
        if (fields[key]) list.appendChild(templateHtml("dcb-quick-reply", fields[key]));
      });
    return list;
  }

  function productCard(product) {
    var card = h("div", { class: "dcb-card", "data-testid": "product-card" });
    if (product.imageLink && !isDangerousUrl(product.imageLink, "img", "src")) {
      card.appendChild(
        h("div", { class: "dcb-card-image" }, [h("img", { src: product.imageLink, alt: product.imageName || "", loading: "lazy" })])
      );
    }
    var body = h("div", { class: "dcb-card-body" }, [
      product.title ? h("p", { class: "dcb-card-title", text: product.title }) : null,
      product.numeric || product.numeric === 0 ? h("p", { class: "dcb-card-numeric", text: String(product.numeric) }) : null,
      product.subtitle ? templateHtml("dcb-card-subtitle", product.subtitle) : null,
    ]);
    var buttons = h("div", { class: "dcb-card-buttons" });
    ["buttonA", "buttonB", "buttonC"].forEach(function (key) {
      if (product[key]) buttons.appendChild(templateHtml("dcb-card-button", product[key]));
    });
    if (buttons.firstChild) body.appendChild(buttons);
    card.appendChild(body);
    return card;
  }

  // dydu_carousel_001: the product fields numbered 1 to 5, one card per number.
  function carouselCards(fields) {
    var cards = [];
    for (var n = 1; n <= CAROUSEL_CARDS; n++) {
      var product = {};
      var any = false;
      ["title", "subtitle", "imageLink", "imageName", "numeric", "buttonA", "buttonB", "buttonC"].forEach(function (name) {
        var value = fields[name + n];
        if (value !== undefined && value !== null) {
          product[name] = value;
          any = true;
        }
      });
      if (any) cards.push(productCard(product));
    }
    return cards;
  }

  // Slides shown one at a time with previous / next (a carousel of cards, or of an answer's steps).
  function slider(slides, kind) {
    var index = 0;
    var track = h("div", { class: "dcb-slides" });
    slides.forEach(function (slide, i) {
      track.appendChild(
        h("div", { class: "dcb-slide", role: "group", "aria-roledescription": t("slide"), "aria-label": i + 1 + " / " + slides.length }, [slide])
      );
    });
    var counter = h("span", { class: "dcb-slider-count", "aria-live": "polite" });
    var previous = h("button", { type: "button", class: "dcb-slider-button", "aria-label": t("previous"), text: "‹", onclick: function () { show(index - 1); } });
    var next = h("button", { type: "button", class: "dcb-slider-button", "aria-label": t("next"), text: "›", onclick: function () { show(index + 1); } });
    function show(i) {
      index = Math.max(0, Math.min(slides.length - 1, i));
      Array.prototype.forEach.call(track.children, function (slide, n) {
        slide.hidden = n !== index;
      });
      counter.textContent = t(kind === "steps" ? "stepCount" : "cardCount", { n: index + 1, total: slides.length });
      previous.disabled = index === 0;
      next.disabled = index === slides.length - 1;
    }
    show(0);
    return h("div", { class: "dcb-slider dcb-slider-" + kind, "data-testid": kind }, [
      track,
      h("div", { class: "dcb-slider-nav" }, [previous, counter, next]),
    ]);
  }

  // CV5 flattens nextStepResponse recursively (src/tools/steps.ts): the answer, then each next step.
  function answerSteps(values) {
    var steps = [];
    for (var step = values; step && typeof step === "object" && steps.length < 20; step = step.nextStepResponse) steps.push(step);
    return steps;
  }

  function sidebarPanel(sidebar) {
    if (!sidebar || typeof sidebar !== "object" || !(sidebar.content || sidebar.url)) return null;
    var more = h("details", { class: "dcb-more", "data-testid": "sidebar" }, [h("summary", { text: sidebar.title || t("more") })]);
    var body = h("div", { class: "dcb-more-body" });
    if (sidebar.content) body.appendChild(sanitize(decodeEntitiesOnce(sidebar.content)));
    if (sidebar.url && !isDangerousUrl(sidebar.url, "iframe", "src")) {
      body.appendChild(h("iframe", { src: sidebar.url, title: sidebar.title || t("more"), sandbox: "allow-scripts allow-popups allow-forms", loading: "lazy" }));
    }
    more.appendChild(body);
    return more;
  }

  function bubbles(html, first) {
    return answerParts(decodeEntitiesOnce(html || "")).map(function (part, index) {
      var bubble = h("div", { class: "dcb-bubble dcb-bubble-bot", "data-from": "bot" }, [first && index === 0 ? srOnly(botName + colon()) : null]);
      bubble.appendChild(withoutSeparators(sanitize(part)));
      return bubble;
    });
  }

  // CV5 shows rewording links inside the text, where "A — B" reads well; here they are buttons, and a
  // dash, bar, slash, dot or comma left alone between two of them floats there: it becomes a space.
  var SEPARATOR = /^[\s\u00a0]*[\u2014\u2013|/\u00b7\u2022,;-]?[\s\u00a0]*$/;

  function withoutSeparators(fragment) {
    Array.prototype.forEach.call(fragment.querySelectorAll("a.reword"), function (link) {
      var between = link.nextSibling;
      var next = between && between.nextSibling;
      if (between && between.nodeType === 3 && SEPARATOR.test(between.nodeValue) && next && next.nodeType === 1 && next.matches("a.reword")) {
        between.nodeValue = " ";
      }
    });
    return fragment;
  }

  // The answer's body: its bubbles (split at <hr>), its steps, its template.
  function answerBody(values) {
    var parts = [];
    var steps = answerSteps(values);
    var fields = templateFields(values);
    if (steps.length > 1) {
      parts.push(
        slider(
          steps.map(function (step, index) {
            var slide = h("div", { class: "dcb-step" }, bubbles(step.text, index === 0));
            var panel = sidebarPanel(step.sidebar);
            if (panel) slide.appendChild(panel);
            return slide;
          }),
          "steps"
        )
      );
    } else {
      parts = parts.concat(bubbles(values.text, true));
    }
    if (fields && values.templateName === TEMPLATE.quickReply) {
      parts.push(quickReplies(fields));
    } else if (fields && values.templateName === TEMPLATE.product) {
      parts.push(productCard(fields));
    } else if (fields && values.templateName === TEMPLATE.carousel) {
      var cards = carouselCards(fields);
      if (cards.length) parts.push(slider(cards, "carousel"));
    }
    if (steps.length <= 1) {
      var panel = sidebarPanel(values.sidebar);
      if (panel) parts.push(panel);
    }
    return parts;
  }

  // A GUI action calls the window function it names (CV5: javascript:dyduXxx('arg'); …). Other
  // JavaScript is not run: this chatbox never evaluates code that comes over the network.
  var GUI_CALL = /(dydu\w*)\s*\(([^)]*)\)/g;

  function runGuiAction(action) {
    if (!/^javascript:\s*dydu/.test(String(action || ""))) return;
    var match;
    GUI_CALL.lastIndex = 0;
    while ((match = GUI_CALL.exec(action))) {
      var name = match[1];
      var args = (match[2].match(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^,\s][^,]*/g) || []).map(function (arg) {
        arg = arg.trim();
        return /^['"]/.test(arg) ? arg.slice(1, -1).replace(/\\(.)/g, "$1") : arg;
      });
      if (typeof window[name] === "function") window[name].apply(window, args);
    }
  }

  // CV5's window functions a GUI action may name.
  if (typeof window.dyduCustomPlaceHolder !== "function") {
    window.dyduCustomPlaceHolder = function (text) {
      if (typeof ui !== "undefined" && ui.els) ui.els.input.setAttribute("placeholder", String(text || t("placeholder")));
    };
  }

  // The host page goes where urlRedirect says: an http(s) address, or a path on the host site.
  function redirectTarget(value) {
    try {
      var url = new URL(String(value || ""), window.location.href);
      return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
    } catch (e) {
      return null;
    }
  }

  function addAnswer(values, options) {
    options = options || {};
    var type = String(values.typeResponse || values.type || "");
    var row = h("div", {
      class: "dcb-row dcb-row-bot" + (/^GB/.test(type) ? " dcb-misunderstood" : ""),
      "data-type": type || null,
    });
    var stack = h("div", { class: "dcb-stack" });
    answerBody(values).forEach(function (part) {
      stack.appendChild(part);
    });
    row.appendChild(h("span", { class: "dcb-avatar dcb-avatar-small", "aria-hidden": "true", text: botName.charAt(0).toUpperCase() }));
    row.appendChild(stack);
    if (values.survey) {
      var survey = options.history ? surveySentBefore(String(values.survey)) : surveyWidget(String(values.survey));
      if (survey) stack.appendChild(survey);
    }
    if (values.callback && typeof values.callback === "object") {
      stack.appendChild(callbackWidget(values.callback));
      hideCallbackLinks(stack); // the form takes the page link's place (kept in the text for other chatboxes)
    }
    if (values.askFeedback === true || values.feedback === "withoutAnswer") {
      stack.appendChild(feedbackWidget(values.feedbackWording || {}));
    }
    (options.into || ui.els.log).appendChild(row);
    keepTypingLast();
    ui.scrollDown();
    if (!options.history && values.guiAction) runGuiAction(values.guiAction);
    var target = !options.history && values.urlRedirect ? redirectTarget(values.urlRedirect) : null;
    if (target) window.open(target, "_self");
    return row;
  }

  function addTopKnowledge(articles, into) {
    var questions = (articles || [])
      .map(function (article) {
        return article && article.reword;
      })
      .filter(Boolean);
    if (!questions.length) return null;
    var list = h("ul", { class: "dcb-chips" });
    questions.forEach(function (question) {
      list.appendChild(
        h("li", {}, [
          h("button", {
            type: "button",
            class: "dcb-chip",
            text: question,
            onclick: function () {
              // CV5 sends top questions with this type (client-contract.md §2.2 (7)).
              handleRewordClicked(question, { type: "redirection_knowledge" });
            },
          }),
        ])
      );
    });
    var block = h("div", { class: "dcb-top", role: "group", "aria-labelledby": "dcb-top-title" }, [
      h("p", { class: "dcb-top-title", id: "dcb-top-title", text: t("top") }),
      list,
    ]);
    (into || ui.els.log).appendChild(block);
    return block;
  }

  function showTyping(into) {
    var row = h("div", { class: "dcb-row dcb-row-bot dcb-typing", "aria-hidden": "true" }, [
      h("span", { class: "dcb-avatar dcb-avatar-small", text: botName.charAt(0).toUpperCase() }),
      h("div", { class: "dcb-bubble dcb-bubble-bot", title: t("typing") }, [h("i"), h("i"), h("i")]),
    ]);
    (into || ui.els.log).appendChild(row);
    ui.els.log.setAttribute("aria-busy", "true");
    ui.scrollDown();
    return function () {
      if (row.parentNode) row.parentNode.removeChild(row);
      ui.els.log.removeAttribute("aria-busy");
    };
  }

  // ---------------------------------------------------------------- feedback (vote → reason → comment)

  function feedbackWidget(wording) {
    function word(key) {
      return wording[key] || t(key);
    }
    var box = h("div", { class: "dcb-feedback", role: "group", "aria-label": t("helpful") });
    var error = h("p", { class: "dcb-feedback-error", role: "alert", hidden: true, text: t("feedbackFailed") });

    function step(children) {
      box.innerHTML = "";
      children.forEach(function (child) {
        box.appendChild(child);
      });
      box.appendChild(error);
    }

    function sending(buttons, request, next) {
      buttons.forEach(function (b) {
        b.disabled = true;
      });
      error.hidden = true;
      request().then(next, function () {
        error.hidden = false;
        buttons.forEach(function (b) {
          b.disabled = false;
        });
      });
    }

    function vote(value) {
      if (state.pendingFeedback === box) state.pendingFeedback = null;
      sending([up, down], function () {
        return feedbackCall("chat/feedback", { feedBack: value });
      }, value === "positive" ? thanks : reasons);
    }

    function thanks(text) {
      step([h("p", { class: "dcb-feedback-done", text: typeof text === "string" ? text : word("commentEnd") })]);
    }

    function reasons() {
      var buttons = [0, 1, 2].map(function (key) {
        return h("button", {
          type: "button",
          class: "dcb-reason",
          text: word("choice" + key) || String(key + 1),
          onclick: function () {
            sending(buttons, function () {
              return feedbackCall("chat/feedback/insatisfaction", { choiceKey: key });
            }, comment);
          },
        });
      });
      step([h("p", { class: "dcb-feedback-question", text: word("choiceIntroduction") }), h("div", { class: "dcb-reasons" }, buttons)]);
      buttons[0].focus({ preventScroll: true });
      ui.scrollDown();
    }

    function comment() {
      var id = "dcb-comment-" + Date.now();
      var area = h("textarea", { id: id, class: "dcb-comment", rows: "2", maxlength: "100", placeholder: word("commentPlaceholder") });
      var submit = h("button", { type: "submit", class: "dcb-comment-send", text: word("commentSend") });
      var form = h("form", { class: "dcb-comment-form" }, [h("label", { for: id, text: word("commentLabel") }), area, submit]);
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        if (!area.value.trim()) {
          area.focus();
          return;
        }
        sending([submit], function () {
          return feedbackCall("chat/feedback/comment", { comment: area.value.trim() });
        }, function () {
          thanks(word("commentEnd"));
        });
      });
      step([form]);
      area.focus({ preventScroll: true });
      ui.scrollDown();
    }

    var up = h("button", { type: "button", class: "dcb-thumb", "data-vote": "positive", title: t("yes"), onclick: function () { vote("positive"); } }, [icon("up"), srOnly(t("yes"))]);
    var down = h("button", { type: "button", class: "dcb-thumb", "data-vote": "negative", title: t("no"), onclick: function () { vote("negative"); } }, [icon("down"), srOnly(t("no"))]);
    step([h("span", { class: "dcb-feedback-question", text: t("helpful") }), h("span", { class: "dcb-thumbs" }, [up, down])]);

    // The server rates the dialog's latest answer that asked for feedback, so only that one offers it.
    if (state.pendingFeedback && state.pendingFeedback.parentNode) state.pendingFeedback.parentNode.removeChild(state.pendingFeedback);
    state.pendingFeedback = box;
    return box;
  }

  // ---------------------------------------------------------------- surveys (client-contract.md §2.2 (19), (20))

  // An answer's `survey` is the survey's id: its configuration is fetched, the form shown in the answer,
  // mandatory fields checked here, and the answers posted as CV5 posts them: ctx, uuid, field_<id>=value,
  // not percent-encoded (the server splits the body only before those names). Every text is set as text.
  var SURVEY_TYPES = ["TITLE", "TEXT", "LONG_TEXT", "MULTIPLE_CHOICE", "SELECT", "RADIO", "CHECKBOX"];
  var surveyCount = 0;

  function surveyKey(surveyId) {
    return (state.contextId || "") + " " + surveyId;
  }

  function surveyAnswered(surveyId) {
    var done = store.json(KEYS.surveys);
    return Array.isArray(done) && done.indexOf(surveyKey(surveyId)) >= 0;
  }

  function rememberSurvey(surveyId) {
    var done = store.json(KEYS.surveys);
    done = Array.isArray(done) ? done : [];
    if (done.indexOf(surveyKey(surveyId)) < 0) done.push(surveyKey(surveyId));
    store.set(KEYS.surveys, JSON.stringify(done.slice(-50)));
  }

  function surveyBox(children) {
    return h("div", { class: "dcb-survey", "data-testid": "survey" }, children);
  }

  function surveyDone(text, title) {
    return [
      title ? h("p", { class: "dcb-survey-title", text: title }) : null,
      h("p", { class: "dcb-survey-done", role: "status" }, [icon("check"), h("span", { text: text })]),
    ];
  }

  // After a reload: a survey answered from this browser shows as sent; one never answered is not offered again.
  function surveySentBefore(surveyId) {
    if (!surveyAnswered(surveyId)) return null;
    var box = surveyBox(surveyDone(t("surveySentBefore")));
    box.classList.add("dcb-survey-sent");
    return box;
  }

  function surveyWidget(surveyId) {
    var box = surveyBox([h("p", { class: "dcb-survey-loading", text: t("surveyLoading") })]);
    box.setAttribute("aria-busy", "true");
    if (surveyAnswered(surveyId)) {
      box.removeAttribute("aria-busy");
      box.innerHTML = "";
      surveyDone(t("surveySentBefore")).forEach(function (child) {
        if (child) box.appendChild(child);
      });
      box.classList.add("dcb-survey-sent");
      return box;
    }
    call("POST", "chat/survey/configuration/" + encodeURIComponent(config.bot), {
      contextUuid: state.contextId || "null",
      solutionUsed: "ASSISTANT",
      language: state.locale,
      surveyId: surveyId,
    }).then(
      function (values) {
        box.removeAttribute("aria-busy");
        box.innerHTML = "";
        if (!values || typeof values !== "object" || !Array.isArray(values.fields)) throw new Error("no survey");
        box.appendChild(surveyForm(values, surveyId, box));
        ui.scrollDown();
      }
    ).catch(function () {
      box.removeAttribute("aria-busy");
      box.innerHTML = "";
      box.appendChild(h("p", { class: "dcb-survey-error", role: "alert", text: t("surveyLoadFailed") }));
    });
    return box;
  }

  function surveyForm(values, surveyId, box) {
    var formId = "dcb-survey-" + ++surveyCount;
    var required = values.requiredMessage || t("surveyRequired");
    var fields = values.fields
      .filter(function (field) {
        return field && SURVEY_TYPES.indexOf(String(field.type)) >= 0; // CV5 throws on an unknown type; here it is left out
      })
      .sort(function (a, b) {
        return (Number(a.order) || 0) - (Number(b.order) || 0);
      });
    var controls = []; // {field, element (the field's block), read() → [[key, value]…], focus, error}

    function mark(field) {
      return field.mandatory
        ? [h("span", { class: "dcb-survey-mark", "aria-hidden": "true", text: " *" }), srOnly(" (" + t("surveyMandatory") + ")")]
        : [];
    }

    function option(type, name, id, label, value) {
      var input = h("input", { type: type, id: id, name: name, value: value });
      return { input: input, element: h("label", { class: "dcb-survey-option", for: id }, [input, h("span", { text: label })]) };
    }

    fields.forEach(function (field) {
      var id = formId + "-" + field.id;
      var name = "field_" + field.id;
      var label = String(field.label || "");
      var error = h("p", { class: "dcb-survey-field-error", id: id + "-error", role: "alert", hidden: true });
      var type = String(field.type);
      var block, read, focus;
      if (type === "TITLE") {
        controls.push({ field: field, element: h("p", { class: "dcb-survey-heading", text: label }), read: null });
        return;
      }
      if (type === "TEXT" || type === "LONG_TEXT") {
        var text = type === "TEXT"
          ? h("input", { type: "text", id: id, name: name, class: "dcb-survey-input" })
          : h("textarea", { id: id, name: name, rows: "3", class: "dcb-survey-input" });
        text.setAttribute("aria-describedby", error.id);
        if (field.mandatory) text.setAttribute("aria-required", "true");
        block = h("div", { class: "dcb-survey-field" }, [h("label", { for: id, class: "dcb-survey-label" }, [label].concat(mark(field))), text, error]);
        read = function () {
          return text.value.trim() ? [[name, text.value]] : [];
        };
        focus = text;
      } else if (type === "SELECT") {
        var select = h("select", { id: id, name: name, class: "dcb-survey-input" }, [h("option", { value: "", text: t("surveyChoose") })]);
        (field.children || []).forEach(function (child) {
          select.appendChild(h("option", { value: String(child.label || ""), text: String(child.label || "") }));
        });
        select.setAttribute("aria-describedby", error.id);
        if (field.mandatory) select.setAttribute("aria-required", "true");
        block = h("div", { class: "dcb-survey-field" }, [h("label", { for: id, class: "dcb-survey-label" }, [label].concat(mark(field))), select, error]);
        read = function () {
          return select.value ? [[name, select.value]] : [];
        };
        focus = select;
      } else if (type === "MULTIPLE_CHOICE") {
        var options = (field.children || []).map(function (child) {
          var kind = String(child.type) === "CHECKBOX" ? "checkbox" : "radio";
          var made = option(kind, name, id + "-" + child.id, String(child.label || ""), String(child.label || ""));
          made.child = child;
          return made;
        });
        block = h(
          "fieldset",
          { class: "dcb-survey-field dcb-survey-choices", "aria-describedby": error.id },
          [h("legend", { class: "dcb-survey-label" }, [label].concat(mark(field)))]
            .concat(options.map(function (made) {
              return made.element;
            }))
            .concat([error])
        );
        read = function () {
          // The first choice as field_<fieldId>, other check boxes as field_<optionId> (a field name is sent once).
          return options
            .filter(function (made) {
              return made.input.checked;
            })
            .map(function (made, index) {
              return [index === 0 ? name : "field_" + made.child.id, made.input.value];
            });
        };
        focus = options.length ? options[0].input : null;
      } else {
        // A lone RADIO or CHECKBOX: checked or not; checked sends its label.
        var lone = option(type === "RADIO" ? "radio" : "checkbox", name, id, label, label);
        if (field.mandatory) lone.element.appendChild(h("span", {}, mark(field)));
        block = h("div", { class: "dcb-survey-field" }, [lone.element, error]);
        read = function () {
          return lone.input.checked ? [[name, label]] : [];
        };
        focus = lone.input;
      }
      controls.push({ field: field, element: block, read: read, focus: focus, error: error });
    });

    var formError = h("p", { class: "dcb-survey-error", role: "alert", hidden: true });
    var submit = h("button", { type: "submit", class: "dcb-survey-send", text: values.submitValue || t("surveySend") });
    var form = h(
      "form",
      { class: "dcb-survey-form", novalidate: true, "aria-label": values.title || t("survey") },
      [values.title ? h("p", { class: "dcb-survey-title", text: values.title }) : null]
        .concat(controls.map(function (control) {
          return control.element;
        }))
        .concat([formError, submit])
    );

    function showError(control, text) {
      control.error.textContent = text;
      control.error.hidden = false;
      control.element.classList.add("dcb-survey-invalid");
      var target = control.element.tagName === "FIELDSET" ? control.element : control.focus;
      if (target) target.setAttribute("aria-invalid", "true");
    }

    function clearErrors() {
      formError.hidden = true;
      controls.forEach(function (control) {
        if (!control.error) return;
        control.error.hidden = true;
        control.element.classList.remove("dcb-survey-invalid");
        control.element.removeAttribute("aria-invalid");
        if (control.focus) control.focus.removeAttribute("aria-invalid");
      });
    }

    // A field's error goes once it is answered.
    function answered(event) {
      controls.forEach(function (control) {
        if (!control.error || control.error.hidden || !control.element.contains(event.target)) return;
        if (!control.read().length) return;
        control.error.hidden = true;
        control.element.classList.remove("dcb-survey-invalid");
        control.element.removeAttribute("aria-invalid");
        if (control.focus) control.focus.removeAttribute("aria-invalid");
      });
    }
    form.addEventListener("change", answered);
    form.addEventListener("input", answered);

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      clearErrors();
      var pairs = [["ctx", state.contextId || values.contextId || ""], ["uuid", values.surveyId || surveyId]];
      var missing = [];
      controls.forEach(function (control) {
        if (!control.read) return;
        var given = control.read();
        if (!given.length && control.field.mandatory) missing.push(control);
        pairs = pairs.concat(given);
      });
      if (missing.length) {
        missing.forEach(function (control) {
          showError(control, required);
        });
        if (missing[0].focus) missing[0].focus.focus();
        return;
      }
      submit.disabled = true;
      form.setAttribute("aria-busy", "true");
      var body = pairs
        .map(function (pair) {
          return pair[0] + "=" + pair[1];
        })
        .join("&");
      call("POST", "chat/survey/" + encodeURIComponent(config.bot), body).then(
        function () {
          rememberSurvey(values.surveyId || surveyId);
          box.innerHTML = "";
          surveyDone(t("surveySent"), values.title).forEach(function (child) {
            if (child) box.appendChild(child);
          });
          box.classList.add("dcb-survey-sent");
          ui.scrollDown();
          if (values.reword) send(String(values.reword), {}); // CV5 asks the survey's reword for the visitor
        },
        function (error) {
          submit.disabled = false;
          form.removeAttribute("aria-busy");
          var server = (error && error.body) || {};
          var message = typeof server.error === "string" && server.error ? server.error : t("surveySendFailed");
          var named = controls.filter(function (control) {
            return control.read && server.field && (server.field === "field_" + control.field.id ||
              (control.field.children || []).some(function (child) {
                return server.field === "field_" + child.id;
              }));
          })[0];
          // The server's error under the field it names (the survey's own message for a missing one);
          // above the button otherwise.
          if (named) showError(named, server.code === "MISSING_FIELD" ? required : message);
          formError.textContent = named ? t("surveySendFailed") : message;
          formError.hidden = false;
          ui.scrollDown();
        }
      );
    });
    return form;
  }

  // ---------------------------------------------------------------- callback (nobody there)

  // When nobody can take a visitor who asked for a human, the answer carries `callback` ({label, url}) and
  // its text links to the callback page (for chatboxes that show links only, such as CV5). Here it becomes a
  // button under the answer that opens a small form in the conversation (phone required, name optional),
  // sent to the Callback servlet with the dialog's context id; the page's link stays in the text, hidden. The
  // server checks the number: its refusal shows under the field, in the chatbox's words for the errors it
  // names (its own message otherwise), and what was typed stays. data-testid="callback", "callback-error",
  // "callback-done".
  var callbackCount = 0;
  var callbackWidgets = []; // {box, relabel}: a language switch relabels those on screen

  function hideCallbackLinks(stack) {
    Array.prototype.forEach.call(stack.querySelectorAll("a.dydu-callback-link"), function (link) {
      link.hidden = true;
      var before = link.previousSibling;
      while (before && before.nodeType === 3 && !before.nodeValue.trim()) before = before.previousSibling;
      if (before && before.nodeType === 1 && before.tagName === "BR") before.hidden = true; // no empty line left
    });
  }

  function callbackWidget(offer) {
    var id = "dcb-callback-" + ++callbackCount;
    var serverLabel = typeof offer.label === "string" ? offer.label.trim() : "";
    var els = {};
    els.openLabel = h("span", {});
    els.open = h("button", { type: "button", class: "dcb-callback-open", "aria-expanded": "false", "aria-controls": id }, [icon("phone"), els.openLabel]);
    els.intro = h("p", { class: "dcb-callback-intro", id: id + "-intro" });
    els.phoneText = h("span", {});
    els.phoneRequired = srOnly("");
    els.phone = h("input", {
      type: "tel",
      id: id + "-phone",
      name: "phone",
      class: "dcb-callback-input",
      autocomplete: "tel",
      inputmode: "tel",
      maxlength: "100",
      "aria-required": "true",
      "aria-describedby": id + "-phone-error",
    });
    els.phoneError = h("p", { class: "dcb-callback-field-error", id: id + "-phone-error", "data-testid": "callback-error", role: "alert", hidden: true });
    els.nameText = h("span", {});
    els.nameOptional = h("span", { class: "dcb-callback-optional" });
    els.name = h("input", { type: "text", id: id + "-name", name: "name", class: "dcb-callback-input", autocomplete: "name", maxlength: "100" });
    els.error = h("p", { class: "dcb-callback-error", role: "alert", hidden: true });
    els.cancel = h("button", { type: "button", class: "dcb-callback-cancel" });
    els.send = h("button", { type: "submit", class: "dcb-callback-send" });
    els.form = h("form", { id: id, class: "dcb-callback-form", novalidate: true, "aria-describedby": els.intro.id, hidden: true }, [
      els.intro,
      h("div", { class: "dcb-callback-field" }, [
        h("label", { for: els.phone.id, class: "dcb-callback-label" }, [els.phoneText, h("span", { class: "dcb-callback-mark", "aria-hidden": "true", text: " *" }), els.phoneRequired]),
        els.phone,
        els.phoneError,
      ]),
      h("div", { class: "dcb-callback-field" }, [
        h("label", { for: els.name.id, class: "dcb-callback-label" }, [els.nameText, " ", els.nameOptional]),
        els.name,
      ]),
      els.error,
      h("div", { class: "dcb-callback-actions" }, [els.cancel, els.send]),
    ]);
    els.doneText = h("span", {});
    els.done = h("p", { class: "dcb-callback-done", role: "status", tabindex: "-1", "data-testid": "callback-done", hidden: true }, [icon("check"), els.doneText]);
    els.box = h("div", { class: "dcb-callback", "data-testid": "callback" }, [els.open, els.form, els.done]);
    var sentPhone = "";
    var sending = false;

    function relabel() {
      els.box.setAttribute("lang", state.locale);
      // The offer's words are the server's (the dialog's language when it answered); ours if it sent none.
      els.openLabel.textContent = serverLabel || t("callbackOffer");
      els.form.setAttribute("aria-label", serverLabel || t("callbackOffer"));
      els.intro.textContent = t("callbackIntro");
      els.phoneText.textContent = t("callbackPhone");
      els.phoneRequired.textContent = " (" + t("surveyMandatory") + ")";
      els.nameText.textContent = t("callbackName");
      els.nameOptional.textContent = "(" + t("callbackOptional") + ")";
      els.phone.setAttribute("placeholder", t("callbackPlaceholder"));
      els.cancel.textContent = t("callbackCancel");
      els.send.textContent = sending ? t("callbackSending") : t("callbackSend");
      els.doneText.textContent = t("callbackDone", { phone: sentPhone });
    }

    function fieldError(text) {
      els.phoneError.textContent = text;
      els.phoneError.hidden = false;
      els.phone.setAttribute("aria-invalid", "true");
      els.phone.focus();
    }

    function clearErrors() {
      els.phoneError.hidden = true;
      els.phone.removeAttribute("aria-invalid");
      els.error.hidden = true;
    }

    function show() {
      els.open.hidden = true;
      els.open.setAttribute("aria-expanded", "true");
      els.form.hidden = false;
      els.phone.focus({ preventScroll: true });
      els.form.scrollIntoView({ block: "nearest" });
    }

    function hide() {
      clearErrors();
      els.form.hidden = true;
      els.open.hidden = false;
      els.open.setAttribute("aria-expanded", "false");
      els.open.focus({ preventScroll: true });
    }

    function refused(error) {
      var server = (error && error.body) || {};
      var message = typeof server.error === "string" && server.error ? server.error : "";
      if (error && error.status === 400 && (server.field === "phone" || server.field === "phoneNumber")) {
        var words = { MISSING_FIELD: "callbackMissing", INVALID_FIELD: "callbackInvalid" }[server.code];
        fieldError(words ? t(words) : message || t("callbackInvalid"));
        return;
      }
      els.error.textContent = error && error.status === 429 ? t("callbackTooMany") : (error && error.status === 400 && message) || t("callbackFailed");
      els.error.hidden = false;
    }

    els.open.addEventListener("click", show);
    els.cancel.addEventListener("click", hide);
    els.phone.addEventListener("input", function () {
      if (!els.phoneError.hidden) clearErrors();
    });
    els.form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (sending) return;
      clearErrors();
      sending = true;
      els.send.disabled = els.cancel.disabled = true;
      els.form.setAttribute("aria-busy", "true");
      relabel();
      var fields = { phone: els.phone.value, name: els.name.value, contextId: state.contextId, language: state.locale };
      call("POST", "callback/" + encodeURIComponent(config.bot), fields)
        .then(
          function (result) {
            sentPhone = (result && typeof result.phone === "string" && result.phone) || els.phone.value.trim();
            els.form.hidden = true;
            els.done.hidden = false;
            relabel();
            els.done.focus({ preventScroll: true });
            els.done.scrollIntoView({ block: "nearest" });
          },
          refused
        )
        .finally(function () {
          sending = false;
          els.send.disabled = els.cancel.disabled = false;
          els.form.removeAttribute("aria-busy");
          relabel();
        });
    });

    relabel();
    callbackWidgets.push({ box: els.box, relabel: relabel });
    return els.box;
  }

  function relabelCallbacks() {
    // Those a new conversation took off the screen are forgotten.
    callbackWidgets = callbackWidgets.filter(function (widget) {
      if (widget.box.isConnected) widget.relabel();
      return widget.box.isConnected;
    });
  }

  // ---------------------------------------------------------------- personal data (GDPR)

  // The menu's "My personal data" (CV5's GDPR form, client-contract.md §2.2 (14)): the visitor asks by
  // e-mail for their data, or for its deletion; one chat/gdpr call per request ticked. The server records
  // each for the bot's administrators, who answer from the back office; a 2xx is the confirmation.
  var personalData = (function () {
    var OBJECTS = [
      { object: "Get", wording: "gdprGet" },
      { object: "Delete", wording: "gdprDelete" },
    ];
    var els = null;
    var recorded = []; // the requests the server took since the form was opened

    function build() {
      els = {};
      els.title = h("h3", { class: "dcb-sheet-title", id: "dcb-gdpr-title" });
      els.back = h("button", { type: "button", class: "dcb-tool dcb-sheet-back", onclick: ui.hideSheet }, [icon("back"), (els.backLabel = srOnly(""))]);
      els.intro = h("p", { class: "dcb-sheet-intro" });
      els.legend = h("legend", {});
      els.boxes = OBJECTS.map(function (choice) {
        var input = h("input", { type: "checkbox", name: "object", value: choice.object });
        var text = h("span", {});
        return { choice: choice, input: input, text: text, label: h("label", { class: "dcb-check" }, [input, text]) };
      });
      els.mailLabel = h("label", { for: "dcb-gdpr-mail" });
      els.mail = h("input", { type: "email", id: "dcb-gdpr-mail", class: "dcb-field-input", name: "mail", autocomplete: "email", maxlength: "254", required: true });
      els.error = h("p", { class: "dcb-sheet-error", role: "alert", hidden: true });
      els.send = h("button", { type: "submit", class: "dcb-primary" });
      els.form = h("form", { class: "dcb-sheet-form", novalidate: true }, [
        h(
          "fieldset",
          { class: "dcb-choices" },
          [els.legend].concat(
            els.boxes.map(function (box) {
              return box.label;
            })
          )
        ),
        h("div", { class: "dcb-field" }, [els.mailLabel, els.mail]),
        els.error,
        els.send,
      ]);
      els.form.addEventListener("submit", submit);
      els.doneTitle = h("p", { class: "dcb-done-title" });
      els.doneList = h("ul", { class: "dcb-done-list" });
      els.doneText = h("p", { class: "dcb-done-text" });
      els.doneBack = h("button", { type: "button", class: "dcb-primary", onclick: ui.hideSheet });
      els.done = h("div", { class: "dcb-done", role: "status", "data-testid": "gdpr-done", hidden: true }, [
        h("span", { class: "dcb-done-icon" }, [icon("check")]),
        els.doneTitle,
        els.doneList,
        els.doneText,
        els.doneBack,
      ]);
      els.root = h("section", { class: "dcb-gdpr", "aria-labelledby": "dcb-gdpr-title", "data-testid": "gdpr" }, [
        h("div", { class: "dcb-sheet-head" }, [els.back, els.title]),
        els.intro,
        els.form,
        els.done,
      ]);
    }

    function relabel() {
      if (!els) return;
      els.root.setAttribute("lang", state.locale);
      els.title.textContent = t("gdprTitle");
      els.backLabel.textContent = t("gdprBack");
      els.back.setAttribute("title", t("gdprBack"));
      els.intro.textContent = t("gdprIntro");
      els.legend.textContent = t("gdprWhat");
      els.boxes.forEach(function (box) {
        box.text.textContent = t(box.choice.wording);
      });
      els.mailLabel.textContent = t("gdprMail");
      els.mail.setAttribute("placeholder", state.locale === "fr" ? "nom@exemple.fr" : "name@example.com");
      els.send.textContent = els.send.disabled ? t("gdprSending") : t("gdprSend");
      els.doneTitle.textContent = t("gdprDoneTitle");
      els.doneList.innerHTML = "";
      recorded.forEach(function (choice) {
        els.doneList.appendChild(h("li", { text: t(choice.wording) }));
      });
      els.doneText.textContent = t("gdprDone", { mail: els.mail.value.trim() });
      els.doneBack.textContent = t("gdprBack");
    }

    function open() {
      if (!els) build();
      recorded = [];
      els.form.hidden = els.intro.hidden = false;
      els.done.hidden = true;
      els.error.hidden = true;
      els.send.disabled = false;
      els.boxes.forEach(function (box) {
        box.input.checked = false;
      });
      relabel();
      ui.showSheet(els.root, els.boxes[0].input);
    }

    function fail(message, control) {
      els.error.textContent = message;
      els.error.hidden = false;
      if (control) {
        control.setAttribute("aria-invalid", "true");
        control.focus();
      }
    }

    function submit(event) {
      event.preventDefault();
      els.mail.removeAttribute("aria-invalid");
      els.boxes[0].input.removeAttribute("aria-invalid");
      els.error.hidden = true;
      var wanted = els.boxes.filter(function (box) {
        return box.input.checked;
      });
      var mail = els.mail.value.trim();
      if (!wanted.length) return fail(t("gdprChoose"), els.boxes[0].input);
      if (!mail || !els.mail.checkValidity()) return fail(t("gdprMailInvalid"), els.mail);
      els.send.disabled = true;
      els.send.textContent = t("gdprSending");
      // One request after the other, like CV5; one the server took is unticked, so a retry sends only the rest.
      var sending = Promise.resolve();
      wanted.forEach(function (box) {
        sending = sending.then(function () {
          var fields = { clientId: store.get(KEYS.client), language: state.locale, mail: mail, object: box.choice.object };
          return call("POST", "chat/gdpr/" + encodeURIComponent(config.bot), fields).then(function () {
            recorded.push(box.choice);
            box.input.checked = false;
          });
        });
      });
      sending.then(
        function () {
          els.send.disabled = false;
          els.form.hidden = els.intro.hidden = true;
          els.done.hidden = false;
          relabel();
          els.doneBack.focus({ preventScroll: true });
        },
        function (error) {
          els.send.disabled = false;
          els.send.textContent = t("gdprSend");
          var refused = error && error.body && error.body.field === "mail";
          fail(refused ? t("gdprMailInvalid") : t("gdprFailed"), refused ? els.mail : null);
        }
      );
    }

    return { open: open, relabel: relabel };
  })();

  // ---------------------------------------------------------------- the conversation

  function ask(text) {
    // CV5's input sanitiser sends < > & HTML-escaped; the server unescapes them (client-contract.md §2.2 (8)).
    var escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    send(escaped, { showQuestion: true, shownText: text });
  }

  // Each question gets a slot right after it, so answers stay under their question even when the
  // user asks again before the bot has answered. In live chat the text goes to the operator instead.
  function send(text, options) {
    if (options.showQuestion) addUserBubble(options.shownText || text);
    var slot = options.slot || ui.els.log.appendChild(h("div", { class: "dcb-slot" }));
    keepTypingLast();
    state.talks = state.talks.then(function () {
      return (state.starting || Promise.resolve()).then(function () {
        if (livechat.mode() !== "off") return sendToOperator(text, options, slot);
        var done = showTyping(slot);
        return talk(text, { extra: options.extra, doNotRegisterInteraction: options.doNotRegisterInteraction })
          .then(function (values) {
            done();
            ui.setStatus("online");
            showAnswer(values || {}, slot);
          })
          .catch(function () {
            done();
            ui.setStatus("offline");
            failedMessage(slot, function () {
              send(text, Object.assign({}, options, { showQuestion: false, slot: slot }));
            });
          });
      });
    });
    return state.talks;
  }

  // A bot answer, or the start of live chat (its text is then a notice, client-contract.md §4.1).
  function showAnswer(values, slot) {
    if (livechat.starts(values) || livechat.mode() !== "off") livechat.answered(values, slot);
    else if (values.typeResponse !== "DMLinkClicked") addAnswer(values, { into: slot }); // a followed link: recorded, nothing to show
  }

  function sendToOperator(text, options, slot) {
    return livechat.send(text).then(
      function (values) {
        ui.setStatus("online");
        if (values) livechat.answered(values, slot);
      },
      function () {
        ui.setStatus("offline");
        failedMessage(slot, function () {
          send(text, Object.assign({}, options, { showQuestion: false, slot: slot }));
        });
      }
    );
  }

  function failedMessage(slot, retry) {
    var note = h("div", { class: "dcb-row dcb-row-error", role: "alert" }, [
      icon("alert"),
      h("span", { text: t("sendFailed") }),
      h("button", {
        type: "button",
        class: "dcb-retry",
        text: t("retry"),
        onclick: function () {
          note.parentNode.removeChild(note);
          retry();
        },
      }),
    ]);
    slot.appendChild(note);
    ui.scrollDown();
  }

  function serverStatus() {
    return call("GET", "serverstatus", null, TIMEOUT.status);
  }

  // CV5 registers a visit at most once a day per browser (client-contract.md §2.2 (2)).
  function welcomeCall() {
    var key = KEYS.visit();
    var last = Number(store.get(key) || 0);
    if (Date.now() - last < DAY_MS) return;
    call("POST", "chat/welcomecall/" + encodeURIComponent(config.bot), {
      contextUuid: state.contextId,
      language: state.locale,
      qualificationMode: "false",
      solutionUsed: "ASSISTANT",
      space: state.space,
      variables: "{}",
    }).then(
      function () {
        store.set(key, String(Date.now()));
      },
      function () {
        /* a visit not counted is no reason to bother the user */
      }
    );
  }

  function checkContext() {
    if (!state.contextId) return Promise.resolve();
    var path = "chat/availablecontext/" + encodeURIComponent(config.bot) + "/" + encodeURIComponent(state.contextId);
    return call("POST", path).then(
      function (result) {
        if (!result || result.isContextStillAvailable !== true) forgetContext();
      },
      function () {
        forgetContext();
      }
    );
  }

  function loadLanguages() {
    return call("GET", "account/dydubox/bots/language", { botUUID: config.bot }).then(
      function (result) {
        var list = Array.isArray(result) ? result : [];
        var codes = list
          .filter(function (item) {
            return item && item.isAvailable !== false && WORDING[String(item.id).toLowerCase()];
          })
          .map(function (item) {
            return String(item.id).toLowerCase();
          });
        if (codes.length) state.languages = codes;
        // CV5 falls back to French when the bot does not speak the current language.
        if (state.languages.indexOf(state.locale) < 0) {
          setLocale(state.languages.indexOf("fr") >= 0 ? "fr" : state.languages[0]);
        }
        renderLanguageSwitch();
      },
      function () {
        renderLanguageSwitch();
      }
    );
  }

  function renderLanguageSwitch() {
    var group = ui.els.langGroup;
    group.innerHTML = "";
    if (state.languages.length < 2) return;
    state.languages.forEach(function (code) {
      group.appendChild(
        h("button", {
          type: "button",
          class: "dcb-lang",
          value: code,
          lang: code,
          text: code.toUpperCase(),
          "aria-pressed": String(code === state.locale),
          onclick: function () {
            switchLanguage(code);
          },
        })
      );
    });
  }

  function topKnowledge() {
    return call("POST", "chat/topknowledge/" + encodeURIComponent(config.bot), {
      language: state.locale,
      maxKnowledge: 3,
      period: "Last30Days",
      space: state.space,
      solutionUsed: "ASSISTANT",
    }).then(
      function (result) {
        try {
          var articles = result && result.knowledgeArticles;
          return typeof articles === "string" ? JSON.parse(articles) : articles || [];
        } catch (e) {
          return [];
        }
      },
      function () {
        return []; // no top questions is no reason to stop the conversation
      }
    );
  }

  // The welcome is cached per context so a reload shows it again without asking (client-contract.md §5).
  function welcome() {
    var cached = store.json(KEYS.welcome);
    if (state.contextId && cached && cached.contextId === state.contextId && cached.values) {
      return Promise.resolve(cached.values);
    }
    return talk("#welcome#", { doNotRegisterInteraction: true }).then(function (values) {
      cacheWelcome(values);
      return values;
    });
  }

  function cacheWelcome(values) {
    if (values && values.contextId && values.text) {
      store.set(KEYS.welcome, JSON.stringify({ contextId: values.contextId, values: values }));
    }
  }

  function history() {
    if (!state.contextId) return Promise.resolve([]);
    return call("POST", "chat/history/" + encodeURIComponent(config.bot), {
      contextUuid: state.contextId,
      solutionUsed: "ASSISTANT",
    }).then(
      function (result) {
        return (result && Array.isArray(result.interactions) && result.interactions) || [];
      },
      function () {
        return [];
      }
    );
  }

  // The log opens with the start screen (the welcome and the featured questions), then the conversation
  // replayed from the history, then what is said from now on (a question asked during the start-up too).
  function logBlock(name, after) {
    var log = ui.els.log;
    var block = log.querySelector(":scope > .dcb-" + name);
    if (!block) {
      block = h("div", { class: "dcb-" + name });
      log.insertBefore(block, after ? after.nextSibling : log.firstChild);
    }
    return block;
  }

  function showStart(welcomeValues, articles) {
    var block = logBlock("start");
    block.innerHTML = "";
    addAnswer(welcomeValues || {}, { history: true, into: block });
    addTopKnowledge(articles, block);
    ui.scrollDown(); // the visitor stays where the conversation is
  }

  function replay(interactions) {
    var log = ui.els.log;
    var past = logBlock("past", logBlock("start"));
    past.innerHTML = "";
    // Feedback calls rate the dialog's latest answer that asked for it, so only that answer may offer
    // the thumbs again, and only while it is unrated (an answer rated before carries `feedBack`).
    var rateable = -1;
    interactions.forEach(function (interaction, index) {
      if (interaction.askFeedback === true || interaction.feedBack) rateable = index;
    });
    log.setAttribute("aria-busy", "true"); // one announcement for the restored conversation, not one per bubble
    interactions.forEach(function (interaction, index) {
      var user = interaction.user || "";
      var hidden = interaction.hideRequest || user.indexOf("_pushcondition_") >= 0 || user === LC.LEAVE_QUEUE_INPUT;
      if (user && !hidden) addUserBubble(user, past);
      if (!interaction.text) return;
      var values = Object.assign({}, interaction, { typeResponse: interaction.type });
      if (interaction.human === true) {
        addOperatorBubble(values, { into: past });
      } else if (historyNotice(interaction)) {
        addNotice(interaction.text, interaction.type, { into: past });
      } else {
        if (index !== rateable) values.askFeedback = false;
        addAnswer(values, { history: true, into: past });
      }
    });
    log.removeAttribute("aria-busy");
    return interactions;
  }

  // Startup in CV5's order (client-contract.md §2.3): availablecontext, bots/language, topknowledge,
  // welcome, history. Only the server status and the welcome are required to go on.
  var serverReady = null;

  function startConversation() {
    if (state.started || state.starting) return state.starting;
    if (!config.bot) {
      ui.showAlert(t("noBot"));
      return null;
    }
    ui.setStatus("connecting");
    ui.hideAlert();
    // Superseded when the visitor starts another conversation meanwhile: its steps then stop here.
    var generation = state.generation;
    function ours(step) {
      return function (value) {
        if (generation !== state.generation) throw SUPERSEDED;
        return step(value);
      };
    }
    state.starting = (serverReady || serverStatus())
      .then(
        ours(function () {
          serverReady = Promise.resolve();
          ui.setStatus("online");
          return checkContext();
        })
      )
      .then(ours(loadLanguages))
      .then(ours(topKnowledge))
      .then(
        ours(function (articles) {
          return welcome().then(
            ours(function (values) {
              showStart(values, articles);
            })
          );
        })
      )
      .then(ours(history))
      .then(ours(replay))
      .then(
        ours(function (interactions) {
          state.started = true;
          state.starting = null;
          livechat.resume(interactions);
          ui.scrollDown();
          if (typeof window.dyduChatboxReady === "function") window.dyduChatboxReady();
        })
      )
      .then(null, function () {
        if (generation !== state.generation) return; // superseded (or failed after it was): the newer one carries on
        serverReady = null;
        state.starting = null;
        ui.setStatus("offline");
        ui.showAlert(t("serverDown"), startConversation);
      });
    return state.starting;
  }

  // A new dialog: #reset# names the old context so the server archives it; its answer is the welcome.
  function newConversation() {
    var previous = state.contextId;
    state.generation += 1;
    var generation = state.generation;
    livechat.stop(); // the server lets the old dialog's live chat go when it gets #reset#
    state.started = false;
    forgetContext();
    ui.els.log.innerHTML = "";
    ui.hideAlert();
    state.pendingFeedback = null;
    var done = showTyping();
    state.starting = Promise.all([
      talk("#reset#", { doNotRegisterInteraction: true, context: previous }),
      topKnowledge(),
    ]).then(
      function (results) {
        done();
        if (generation !== state.generation) return; // another switch came meanwhile: its answer counts
        cacheWelcome(results[0]);
        showStart(results[0], results[1]);
        state.started = true;
        state.starting = null;
        ui.setStatus("online");
        ui.els.input.focus({ preventScroll: true });
      },
      function () {
        done();
        if (generation !== state.generation) return;
        state.starting = null;
        ui.setStatus("offline");
        ui.showAlert(t("serverDown"), startConversation);
      }
    );
    return state.starting;
  }

  // Another language continues the same dialog: the server takes each talk's `language` (the dialog is kept,
  // its history holds what was said in either), so nothing said leaves the screen; the start screen is asked
  // again in the new language (the welcome, without an interaction, tells the server at once). Queued behind
  // the talks and the start-up under way, so that each answer comes in the language it was asked in.
  function switchLanguage(locale) {
    if (!WORDING[locale]) return state.talks;
    state.talks = state.talks.then(function () {
      return (state.starting || Promise.resolve()).then(function () {
        if (locale === state.locale) return null;
        setLocale(locale);
        if (!state.started) return null; // the start-up, when it runs, speaks the new language
        return Promise.all([talk("#welcome#", { doNotRegisterInteraction: true }), topKnowledge()]).then(
          function (results) {
            cacheWelcome(results[0]);
            showStart(results[0], results[1]);
          },
          function () {
            /* the labels have changed; the next talk carries the language */
          }
        );
      });
    });
    return state.talks;
  }

  function setLocale(locale) {
    if (!WORDING[locale]) return;
    state.locale = locale;
    store.set(KEYS.locale, locale);
    ui.label();
    personalData.relabel();
    relabelCallbacks();
  }

  // ---------------------------------------------------------------- boot

  window.dyduChatbox = {
    open: ui.open,
    close: ui.close,
    ask: function (text) {
      ui.open();
      ask(String(text));
    },
    reset: function () {
      return newConversation();
    },
  };
  window.dydu = window.dydu || {};
  window.dydu.chat = window.dydu.chat || {};
  window.dydu.chat.handleRewordClicked = handleRewordClicked;

  if (config.bot) {
    // Like CV5, the server status and the visit are checked on page load, the dialog on opening.
    serverReady = serverStatus().then(
      function () {
        welcomeCall();
      },
      function (error) {
        serverReady = null;
        throw error;
      }
    );
    serverReady.catch(function () {
      ui.setStatus("offline");
    });
    socket.connect();
  }
  // Opened by default only where the panel does not cover the whole page.
  var roomy = !window.matchMedia || window.matchMedia("(min-width: 521px)").matches;
  if ((config.open && roomy) || store.get(KEYS.open)) ui.open();
  // A live chat in progress goes on behind a closed panel (its launcher counts the operator's messages).
  else if (config.bot && livechat.pending()) startConversation();
})();
