/*
 * Embeddable chatbox: one script tag, plain JavaScript, no build step, no dependencies.
 * It speaks the servlet API the way Dydu's CV5 chatbox does (see spec/client-contract.md).
 *
 *   <script src="https://bots.example/static/chatbox/chatbox.js" data-bot="<bot UUID>"
 *           data-server="https://bots.example" data-language="fr" data-space="Defaut" defer></script>
 *
 * Optional attributes: data-title ("Name — subtitle"), data-open="true" (panel open on load),
 * data-accent (a CSS colour), data-transport="websocket" (talk over /servlet/chatWs when it opens).
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
  };

  function pickLocale(value) {
    var code = String(value || "")
      .slice(0, 2)
      .toLowerCase();
    return WORDING[code] ? code : "fr";
  }

  function colon() {
    return state.locale === "fr" ? " : " : ": ";
  }

  function t(key) {
    return (WORDING[state.locale] || WORDING.fr)[key];
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

  function ApiError(message, status) {
    this.name = "ApiError";
    this.message = message;
    this.status = status || 0;
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
    var init = { method: method, headers: { Accept: "application/json" }, credentials: "omit", mode: "cors" };
    if (method === "GET") {
      var query = formBody(fields);
      if (query) url += (url.indexOf("?") < 0 ? "?" : "&") + query;
    } else if (fields) {
      init.headers["Content-Type"] = "application/x-www-form-urlencoded; charset=utf-8";
      init.body = formBody(fields);
    }
    var controller = window.AbortController ? new AbortController() : null;
    if (controller) init.signal = controller.signal;
    var timer = setTimeout(function () {
      if (controller) controller.abort();
    }, timeout || TIMEOUT.other);
    return fetch(url, init)
      .then(
        function (response) {
          return response.text().then(function (text) {
            if (!response.ok) throw new ApiError(path + " answered " + response.status, response.status);
            return readBody(text);
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

  // What CV5 does with every answer (client-contract.md §1.6): `values` is decoded and returned alone.
  function readBody(text) {
    var body;
    try {
      body = text ? JSON.parse(text) : {};
    } catch (e) {
      return text; // e.g. welcomecall's /*logged*/
    }
    if (!body || typeof body !== "object" || !("values" in body)) return body;
    var values = decodeValues(body.values);
    if (values && typeof values === "object" && !Array.isArray(values)) applySideEffects(values);
    return values;
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
  function talk(text, options) {
    options = options || {};
    var context = options.context !== undefined ? options.context : state.contextId;
    var fields = talkFields(text, options);
    if (socket.ready()) {
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

  // ---------------------------------------------------------------- optional websocket transport

  // REST is the default; with data-transport="websocket" talks go over the chatbox socket while it is
  // open (client-contract.md §4.2 frames) and fall back to REST whenever it is not.
  var socket = (function () {
    var ws = null;
    var waiting = [];
    var pinger = null;

    function url() {
      return config.server.replace(/^http/, "ws") + "/servlet/chatWs";
    }

    function connect() {
      if (!config.websocket || !window.WebSocket) return;
      try {
        ws = new WebSocket(url());
      } catch (e) {
        ws = null;
        return;
      }
      ws.onopen = function () {
        pinger = setInterval(function () {
          if (ws && ws.readyState === 1) ws.send("ping");
        }, 55000);
      };
      ws.onmessage = function (event) {
        if (event.data === "pong") return;
        var frame;
        try {
          frame = JSON.parse(event.data);
        } catch (e) {
          return;
        }
        if (frame.type === "talkResponse" && waiting.length) {
          var values = decodeValues(frame.values || {});
          applySideEffects(values);
          waiting.shift().resolve(values);
        }
      };
      ws.onclose = function () {
        clearInterval(pinger);
        waiting.splice(0).forEach(function (w) {
          w.reject(new ApiError("websocket closed"));
        });
        ws = null;
      };
    }

    function talkOverSocket(fields, context) {
      return new Promise(function (resolve, reject) {
        var parameters = {
          contextId: b64encode(context || ""),
          botId: b64encode(config.bot),
          space: b64encode(fields.space),
          clientId: b64encode(fields.clientId),
          language: b64encode(fields.language),
          solutionUsed: b64encode("ASSISTANT"),
          userUrl: b64encode(fields.userUrl),
          browser: b64encode(fields.browser),
          os: b64encode(fields.os),
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
          var extra = JSON.parse(fields.extraParameters);
          Object.keys(extra).forEach(function (key) {
            parameters.extraParameters[key] = b64encode(extra[key]);
          });
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
        ws.send(JSON.stringify({ type: "talk", parameters: parameters }));
      });
    }

    return {
      connect: connect,
      ready: function () {
        return !!ws && ws.readyState === 1;
      },
      talk: talkOverSocket,
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

  // ---------------------------------------------------------------- the widget

  var ui = (function () {
    var host = h("div", { id: "dydu-chatbox", "data-bot": config.bot });
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
    ]);
    els.avatar = h("span", { class: "dcb-avatar", "aria-hidden": "true", text: botName.charAt(0).toUpperCase() });
    els.status = h("span", { class: "dcb-status", "data-state": "connecting" });
    els.langGroup = h("div", { class: "dcb-langs", role: "group" });
    els.reset = h("button", { type: "button", class: "dcb-tool", "data-action": "reset" }, [icon("reset"), (els.resetLabel = srOnly(""))]);
    els.close = h("button", { type: "button", class: "dcb-tool", "data-action": "close" }, [icon("close"), (els.closeLabel = srOnly(""))]);
    els.header = h("header", { class: "dcb-header" }, [
      els.avatar,
      h("div", { class: "dcb-heading" }, [
        h("h2", { class: "dcb-title", id: "dcb-title", text: botName }),
        h("p", { class: "dcb-subtitle" }, [botSubtitle ? h("span", { text: botSubtitle }) : null, els.status]),
      ]),
      h("div", { class: "dcb-tools" }, [els.langGroup, els.reset, els.close]),
    ]);
    els.log = h("div", { class: "dcb-log", role: "log", "aria-live": "polite", "aria-relevant": "additions", tabindex: "0" });
    els.alert = h("div", { class: "dcb-alert", role: "alert", hidden: true });
    els.input = h("textarea", { id: "dcb-input", class: "dcb-input", rows: "1", maxlength: "600", autocomplete: "off" });
    els.inputLabel = h("label", { for: "dcb-input", class: "dcb-sr" });
    els.send = h("button", { type: "submit", class: "dcb-send", disabled: true }, [icon("send"), (els.sendLabel = srOnly(""))]);
    els.form = h("form", { class: "dcb-form", novalidate: true }, [els.inputLabel, els.input, els.send]);
    els.panel = h("section", { id: "dcb-panel", class: "dcb-panel", "aria-labelledby": "dcb-title", hidden: true }, [
      els.header,
      els.log,
      els.alert,
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
      els.reset.setAttribute("title", t("reset"));
      els.closeLabel.textContent = t("close");
      els.close.setAttribute("title", t("close"));
      els.langGroup.setAttribute("aria-label", t("language"));
      els.log.setAttribute("aria-label", t("messages"));
      els.inputLabel.textContent = t("inputLabel");
      els.input.setAttribute("placeholder", t("placeholder"));
      els.sendLabel.textContent = t("send");
      els.send.setAttribute("title", t("send"));
      els.status.textContent = t(els.status.getAttribute("data-state"));
      shell.setAttribute("lang", state.locale);
      Array.prototype.forEach.call(els.langGroup.children, function (button) {
        button.setAttribute("aria-pressed", String(button.value === state.locale));
      });
    }

    function setStatus(name) {
      els.status.setAttribute("data-state", name);
      els.status.textContent = t(name);
    }

    function open() {
      if (!els.panel.hidden) return;
      els.panel.hidden = false;
      shell.classList.add("dcb-is-open");
      els.launcher.setAttribute("aria-expanded", "true");
      store.set(KEYS.open, "1");
      startConversation();
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
      newConversation(state.locale);
    });
    els.panel.addEventListener("keydown", function (event) {
      if (event.key === "Escape") close();
    });
    els.input.addEventListener("input", autosize);
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
      ask(text);
    }
    // Links written href="#" (rewordings) must never move the page, even if their handler failed.
    els.log.addEventListener("click", function (event) {
      var link = event.target.closest ? event.target.closest("a") : null;
      if (link && link.getAttribute("href") === "#") event.preventDefault();
    });

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
      scrollDown: scrollDown,
      showAlert: showAlert,
      hideAlert: hideAlert,
    };
  })();

  // ---------------------------------------------------------------- messages

  function addUserBubble(text) {
    var row = h("div", { class: "dcb-row dcb-row-user" }, [
      h("div", { class: "dcb-bubble dcb-bubble-user" }, [srOnly(t("you") + colon()), h("span", { class: "dcb-text", text: text })]),
    ]);
    ui.els.log.appendChild(row);
    ui.scrollDown();
    return row;
  }

  function addAnswer(values, options) {
    options = options || {};
    var parts = answerParts(decodeEntitiesOnce(values.text || ""));
    var type = String(values.typeResponse || values.type || "");
    var row = h("div", {
      class: "dcb-row dcb-row-bot" + (/^GB/.test(type) ? " dcb-misunderstood" : ""),
      "data-type": type || null,
    });
    var stack = h("div", { class: "dcb-stack" });
    parts.forEach(function (part, index) {
      var bubble = h("div", { class: "dcb-bubble dcb-bubble-bot" }, [index === 0 ? srOnly(botName + colon()) : null]);
      bubble.appendChild(sanitize(part));
      stack.appendChild(bubble);
    });
    if (values.sidebar && values.sidebar.content) {
      var more = h("details", { class: "dcb-more" }, [h("summary", { text: values.sidebar.title || "…" })]);
      more.appendChild(h("div", { class: "dcb-more-body" }, [sanitize(decodeEntitiesOnce(values.sidebar.content))]));
      stack.appendChild(more);
    }
    row.appendChild(h("span", { class: "dcb-avatar dcb-avatar-small", "aria-hidden": "true", text: botName.charAt(0).toUpperCase() }));
    row.appendChild(stack);
    if (values.askFeedback === true || values.feedback === "withoutAnswer") {
      stack.appendChild(feedbackWidget(values.feedbackWording || {}));
    }
    (options.into || ui.els.log).appendChild(row);
    ui.scrollDown();
    if (!options.history && values.urlRedirect && isValidUrl(values.urlRedirect)) {
      window.open(values.urlRedirect, "_self");
    }
    return row;
  }

  function addTopKnowledge(articles) {
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
    ui.els.log.appendChild(block);
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

  // ---------------------------------------------------------------- the conversation

  function ask(text) {
    // CV5's input sanitiser sends < > & HTML-escaped; the server unescapes them (client-contract.md §2.2 (8)).
    var escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    send(escaped, { showQuestion: true, shownText: text });
  }

  // Each question gets a slot right after it, so answers stay under their question even when the
  // user asks again before the bot has answered.
  function send(text, options) {
    if (options.showQuestion) addUserBubble(options.shownText || text);
    var slot = options.slot || ui.els.log.appendChild(h("div", { class: "dcb-slot" }));
    state.talks = state.talks.then(function () {
      return (state.starting || Promise.resolve()).then(function () {
        var done = showTyping(slot);
        return talk(text, { extra: options.extra, doNotRegisterInteraction: options.doNotRegisterInteraction })
          .then(function (values) {
            done();
            ui.setStatus("online");
            addAnswer(values || {}, { into: slot });
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
            if (code !== state.locale) newConversation(code);
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

  function replay(interactions) {
    var log = ui.els.log;
    // Feedback calls rate the dialog's latest answer that asked for it, so only that answer may offer
    // the thumbs again, and only while it is unrated (an answer rated before carries `feedBack`).
    var rateable = -1;
    interactions.forEach(function (interaction, index) {
      if (interaction.askFeedback === true || interaction.feedBack) rateable = index;
    });
    log.setAttribute("aria-busy", "true"); // one announcement for the restored conversation, not one per bubble
    interactions.forEach(function (interaction, index) {
      var user = interaction.user || "";
      if (user && !interaction.hideRequest && user.indexOf("_pushcondition_") < 0) addUserBubble(user);
      if (interaction.text) {
        var values = Object.assign({}, interaction, { typeResponse: interaction.type });
        if (index !== rateable) values.askFeedback = false;
        addAnswer(values, { history: true });
      }
    });
    log.removeAttribute("aria-busy");
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
    state.starting = (serverReady || serverStatus())
      .then(function () {
        serverReady = Promise.resolve();
        ui.setStatus("online");
        return checkContext();
      })
      .then(loadLanguages)
      .then(topKnowledge)
      .then(function (articles) {
        return welcome().then(function (values) {
          ui.els.log.innerHTML = "";
          addAnswer(values || {}, { history: true });
          addTopKnowledge(articles);
        });
      })
      .then(history)
      .then(replay)
      .then(
        function () {
          state.started = true;
          state.starting = null;
          ui.scrollDown();
          if (typeof window.dyduChatboxReady === "function") window.dyduChatboxReady();
        },
        function () {
          serverReady = null;
          state.starting = null;
          ui.setStatus("offline");
          ui.showAlert(t("serverDown"), startConversation);
        }
      );
    return state.starting;
  }

  // A new dialog: #reset# names the old context so the server archives it; its answer is the welcome.
  function newConversation(locale) {
    var previous = state.contextId;
    if (locale !== state.locale) setLocale(locale);
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
        cacheWelcome(results[0]);
        addAnswer(results[0] || {}, { history: true });
        addTopKnowledge(results[1]);
        state.started = true;
        state.starting = null;
        ui.setStatus("online");
        ui.els.input.focus({ preventScroll: true });
      },
      function () {
        done();
        state.starting = null;
        ui.setStatus("offline");
        ui.showAlert(t("serverDown"), startConversation);
      }
    );
    return state.starting;
  }

  function setLocale(locale) {
    if (!WORDING[locale]) return;
    state.locale = locale;
    store.set(KEYS.locale, locale);
    ui.label();
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
      return newConversation(state.locale);
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
})();
