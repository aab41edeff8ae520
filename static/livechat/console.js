/* The operators' live-chat console: one websocket (/servlet/operator/ws), plain JavaScript, no build step.
 *
 * The server sends a "state" on every (re)connection and pushes what changes; the page keeps a small
 * model (my dialogs, the queue, the team, the callbacks, the open transcript) and redraws from it.
 * Actions go out as JSON ({"action": …, "ref": n}); a reply carries the same ref, an error too.
 */
(function () {
  "use strict";

  // ------------------------------------------------------------------ constants and wording

  var HEARTBEAT_MS = 10000;
  var TYPING_EVERY_MS = 2000;
  var TYPING_PAUSE_MS = 3500;
  var VISITOR_TYPING_TTL_MS = 30000;
  var REPLY_TIMEOUT_MS = 15000;
  var BACKOFF_S = [1, 2, 4, 8, 15, 30];
  var MESSAGE_MAX = 4000;
  // The page's language (the user's back-office language, templates/livechat/console.html): its words come
  // from Django's JavaScript catalogue (/jsi18n/, djangojs.po), its dates and numbers from Intl in that language.
  var LANG = document.documentElement.lang || "en";
  var _ = window.gettext || function (text) { return text; };
  var ngettext = window.ngettext || function (one, many, count) { return count === 1 ? one : many; };
  // fmt(_("Waiting %(wait)s"), {wait: "4 min"}): named placeholders, so a translation may reorder them.
  function fmt(text, values) {
    return String(text).replace(/%\((\w+)\)s/g, function (whole, key) { return key in values ? values[key] : whole; });
  }
  var TITLE = _("Live chat");
  var STATUS_LABELS = { available: _("Available"), busy: _("Busy"), away: _("Away"), offline: _("Offline") };
  var END_REASONS = {
    operator: _("Conversation ended."),
    left_queue: _("The visitor left the queue."),
    visitor_inactive: _("Conversation closed: the visitor stopped answering."),
    queue_timeout: _("Nobody took this visitor in time."),
    new_dialog: _("The visitor started a new conversation.")
  };
  var ERROR_TITLES = {
    DIALOG_NOT_LIVE: _("Conversation ended"),
    NOT_YOUR_DIALOG: _("A colleague's conversation"),
    NOT_IN_QUEUE: _("No longer in the queue"),
    NOT_COMPETENT: _("Skill required"),
    OPERATOR_FULL: _("Limit reached"),
    OPERATOR_UNAVAILABLE: _("Advisor unavailable"),
    TRANSFER_TARGET: _("Transfer impossible"),
    UNKNOWN_OPERATOR: _("Transfer impossible"),
    UNKNOWN_COMPETENCY: _("Transfer impossible"),
    NOBODY_COMPETENT: _("Transfer impossible"),
    NOBODY_AVAILABLE: _("Transfer impossible"),
    CALLBACK_NOT_OPEN: _("Callback already taken"),
    CALLBACK_CLOSED: _("Callback already closed"),
    NOT_YOUR_CALLBACK: _("A colleague's callback"),
    NOT_AN_OPERATOR: _("Access refused"),
    TIMEOUT: _("No answer"),
    OFFLINE: _("Offline")
  };
  var WORDS = {
    degraded: _("Live chat is degraded: new messages may not arrive; reconnecting…"),
    restored: _("Live chat is back: the console is up to date."),
    unavailable: _("Service temporarily unavailable")
  };
  ERROR_TITLES.DATABASE_UNAVAILABLE = WORDS.unavailable;

  // ------------------------------------------------------------------ other scripts of the page

  // suggestions.js (and any other script of the page) plugs in through window.LivechatConsole.use(plugin):
  // it is told of the console's moments (plugin.shown, .message, .line, .sending) and may add fields to a
  // message on its way out. A plugin's failure is its own: the console goes on.
  var plugins = [];
  function tell(moment, detail) {
    plugins.forEach(function (plugin) {
      if (typeof plugin[moment] !== "function") return;
      try { plugin[moment](detail); } catch (error) { if (window.console) window.console.error(error); }
    });
  }

  // ------------------------------------------------------------------ small helpers

  function $(id) { return document.getElementById(id); }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        var value = attrs[key];
        if (value === null || value === undefined || value === false) return;
        if (key === "text") node.textContent = value;
        else if (key === "class") node.className = value;
        else if (key === "dataset") Object.keys(value).forEach(function (k) { node.dataset[k] = value[k]; });
        else if (key === "style") node.setAttribute("style", value);
        else if (key.indexOf("on") === 0 && typeof value === "function") node.addEventListener(key.slice(2), value);
        else node.setAttribute(key, value === true ? "" : value);
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined || child === false) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function icon(name, extra) {
    var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "icon" + (extra ? " " + extra : ""));
    svg.setAttribute("aria-hidden", "true");
    var use = document.createElementNS("http://www.w3.org/2000/svg", "use");
    use.setAttribute("href", "#i-" + name);
    svg.appendChild(use);
    return svg;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function hue(seed) {
    var h = 0;
    String(seed || "").split("").forEach(function (c) { h = (h * 31 + c.charCodeAt(0)) % 360; });
    return h;
  }

  function avatar(label, seed, extraClass) {
    var node = el("span", { class: "avatar" + (extraClass ? " " + extraClass : ""), "aria-hidden": "true" }, [initials(label)]);
    node.style.setProperty("--hue", String(hue(seed || label)));
    return node;
  }

  function initials(label) {
    var words = String(label || "?").replace(/[#n°0-9]+/g, " ").trim().split(/\s+/).filter(Boolean);
    if (!words.length) return "V";
    return (words[0][0] + (words.length > 1 ? words[words.length - 1][0] : "")).toUpperCase();
  }

  function plain(html) {
    var doc = new DOMParser().parseFromString("<body>" + (html || ""), "text/html");
    doc.querySelectorAll("br, p, li, div").forEach(function (n) { n.insertAdjacentText("afterend", " "); });
    return (doc.body.textContent || "").replace(/\s+/g, " ").trim();
  }

  // Server clock minus ours, set from the "now" of each "state" the server sends (waits are measured on its clock).
  var clockSkew = 0;
  function now() { return Date.now() + clockSkew; }
  function parseTime(iso) { var t = iso ? Date.parse(iso) : NaN; return isNaN(t) ? null : t; }

  var fmtTime = new Intl.DateTimeFormat(LANG, { hour: "2-digit", minute: "2-digit" });
  var fmtDay = new Intl.DateTimeFormat(LANG, { weekday: "long", day: "numeric", month: "long" });
  var fmtDate = new Intl.DateTimeFormat(LANG, { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });

  function clock(iso) { var t = parseTime(iso); return t === null ? "" : fmtTime.format(new Date(t)); }

  function dayLabel(t) {
    var d = new Date(t);
    var today = new Date();
    var yesterday = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1);
    if (d.toDateString() === today.toDateString()) return _("Today");
    if (d.toDateString() === yesterday.toDateString()) return _("Yesterday");
    return fmtDay.format(d);
  }

  function since(iso) {
    // "just now", "4 min", "1 h 05", "3 d" (in the page's language)
    var t = parseTime(iso);
    if (t === null) return "";
    var s = Math.max(0, Math.round((now() - t) / 1000));
    if (s < 45) return JUST_NOW;
    var m = Math.round(s / 60);
    if (m < 60) return fmt(_("%(minutes)s min"), { minutes: m });
    var h = Math.floor(m / 60);
    if (h < 24) return fmt(_("%(hours)s h %(minutes)s"), { hours: h, minutes: String(m % 60).padStart(2, "0") });
    return fmt(_("%(days)s d"), { days: Math.floor(h / 24) });
  }
  var JUST_NOW = _("just now");

  function ago(iso) { var s = since(iso); return s === JUST_NOW ? s : (s ? fmt(_("%(duration)s ago"), { duration: s }) : ""); }

  // ------------------------------------------------------------------ the answer HTML sanitizer

  var ALLOWED_TAGS = {
    A: 1, B: 1, STRONG: 1, I: 1, EM: 1, U: 1, S: 1, STRIKE: 1, BR: 1, P: 1, DIV: 1, SPAN: 1, UL: 1, OL: 1, LI: 1,
    BLOCKQUOTE: 1, CODE: 1, PRE: 1, H1: 1, H2: 1, H3: 1, H4: 1, H5: 1, H6: 1, IMG: 1, HR: 1, SMALL: 1, SUB: 1,
    SUP: 1, MARK: 1, TABLE: 1, THEAD: 1, TBODY: 1, TR: 1, TD: 1, TH: 1, DL: 1, DT: 1, DD: 1
  };
  var DROPPED_TAGS = {
    SCRIPT: 1, STYLE: 1, IFRAME: 1, OBJECT: 1, EMBED: 1, APPLET: 1, FRAME: 1, FRAMESET: 1, LINK: 1, META: 1,
    BASE: 1, TEMPLATE: 1, NOSCRIPT: 1, FORM: 1, INPUT: 1, BUTTON: 1, TEXTAREA: 1, SELECT: 1, OPTION: 1, SVG: 1,
    MATH: 1, AUDIO: 1, VIDEO: 1, SOURCE: 1, TRACK: 1, CANVAS: 1, TITLE: 1, HEAD: 1, PORTAL: 1
  };
  var ALLOWED_ATTRS = {
    A: ["href", "title"], IMG: ["src", "alt", "title", "width", "height"], TD: ["colspan", "rowspan"],
    TH: ["colspan", "rowspan"], OL: ["start"]
  };

  function safeUrl(value, forImage) {
    var url = String(value || "").replace(/[\u0000-\u0020\u007f-\u009f]/g, "");
    if (!url) return null;
    var scheme = /^([a-z][a-z0-9+.\-]*):/i.exec(url);
    if (!scheme) return String(value).trim(); // relative
    var name = scheme[1].toLowerCase();
    if (name === "http" || name === "https") return String(value).trim();
    if (!forImage && (name === "mailto" || name === "tel")) return String(value).trim();
    if (forImage && /^data:image\/(png|jpe?g|gif|webp);/i.test(url)) return url;
    return null;
  }

  function cleanInto(source, target) {
    Array.prototype.forEach.call(source.childNodes, function (node) {
      if (node.nodeType === 3) {
        target.appendChild(document.createTextNode(node.data));
        return;
      }
      if (node.nodeType !== 1) return; // comments, processing instructions
      var tag = node.tagName.toUpperCase();
      if (DROPPED_TAGS[tag]) return;
      if (!ALLOWED_TAGS[tag]) { cleanInto(node, target); return; } // unknown element: keep its text
      var copy = document.createElement(tag.toLowerCase());
      (ALLOWED_ATTRS[tag] || []).forEach(function (name) {
        if (!node.hasAttribute(name)) return;
        var value = node.getAttribute(name);
        if (name === "href" || name === "src") {
          value = safeUrl(value, name === "src");
          if (value === null) return;
        }
        copy.setAttribute(name, value);
      });
      if (tag === "A") {
        copy.setAttribute("target", "_blank");
        copy.setAttribute("rel", "noopener noreferrer nofollow");
      }
      if (tag === "IMG") {
        if (!copy.hasAttribute("src")) return;
        copy.setAttribute("loading", "lazy");
        copy.setAttribute("referrerpolicy", "no-referrer");
      }
      cleanInto(node, copy);
      target.appendChild(copy);
    });
  }

  /** Answer HTML (bot, operator, notice) as safe nodes: no script, style, frame, handler or javascript: URL. */
  function sanitize(html) {
    var doc = new DOMParser().parseFromString("<!doctype html><body>" + (html || ""), "text/html");
    var fragment = document.createDocumentFragment();
    cleanInto(doc.body, fragment);
    return fragment;
  }

  // ------------------------------------------------------------------ the model

  var app = $("app");
  var S = {
    me: {
      id: Number(app.dataset.operatorId),
      name: app.dataset.operatorName,
      login: app.dataset.operatorLogin,
      status: app.dataset.operatorStatus,
      activeDialogs: 0,
      maxDialogs: 0,
      competencies: []
    },
    loaded: false,
    degraded: false, // the server cannot push to this console (its channel layer is down)
    dialogs: [], // my dialogs (cards), in the server's order
    queue: [],
    operators: [],
    competencies: [],
    callbacks: [],
    open: null, // {id, kind: "mine" | "queue" | "ended", card}
    lines: {}, // dialog id → {loaded, items: [line], pending: [{ref, text, failed}]}
    unread: {}, // dialog id → count of visitor lines not seen
    fresh: {}, // dialog id → true: new for me, not opened yet
    typing: {}, // dialog id → {content, at}
    readAt: {}, // dialog id → time the visitor read my messages
    late: {}, // dialog id → true
    warned: {}, // dialog id → text
    ended: {}, // dialog id → {reason, text}
    preview: {}, // dialog id → last line as plain text
    drafts: {}, // dialog id → composer text
    closing: {} // callback id → true while its close form is open
  };

  function findDialog(id) { return S.dialogs.find(function (d) { return d.id === id; }) || null; }
  function findQueued(id) { return S.queue.find(function (d) { return d.id === id; }) || null; }
  function isMine(id) { return !!findDialog(id); }

  function visitorName(card) {
    var vars = (card && card.visitor && card.visitor.variables) || {};
    var keys = ["name", "nom", "fullName", "fullname", "firstName", "firstname", "prenom", "prénom", "email"];
    for (var i = 0; i < keys.length; i++) {
      var value = vars[keys[i]];
      if (typeof value === "string" && value.trim()) return value.trim().slice(0, 60);
    }
    return fmt(_("Visitor #%(id)s"), { id: card ? card.id : "?" });
  }

  function lineStore(id) {
    if (!S.lines[id]) S.lines[id] = { loaded: false, items: [], pending: [] };
    return S.lines[id];
  }

  function attentionCount() {
    var count = 0;
    S.dialogs.forEach(function (d) { if (S.fresh[d.id] || S.unread[d.id]) count += 1; });
    return count;
  }

  // ------------------------------------------------------------------ the socket

  var socket = null;
  var connected = false;
  var attempt = 0;
  var retryTimer = null;
  var countdownTimer = null;
  var heartbeatTimer = null;
  var fatal = false;
  var nextRef = 1;
  var waiting = {}; // ref → {resolve, reject, timer}

  function socketUrl() {
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/servlet/operator/ws";
  }

  function connect() {
    clearTimeout(retryTimer);
    clearInterval(countdownTimer);
    if (fatal) return;
    var ws;
    try {
      ws = new WebSocket(socketUrl());
    } catch (error) {
      scheduleReconnect();
      return;
    }
    socket = ws;
    ws.onopen = function () {
      if (socket !== ws) return;
      connected = true;
      attempt = 0;
      clearInterval(heartbeatTimer);
      heartbeatTimer = setInterval(function () { sendRaw({ action: "heartbeat" }); }, HEARTBEAT_MS);
    };
    ws.onmessage = function (event) {
      if (socket !== ws) return;
      var message;
      try { message = JSON.parse(event.data); } catch (error) { return; }
      if (message && typeof message === "object") receive(message);
    };
    ws.onclose = function (event) {
      if (socket !== ws) return;
      socket = null;
      connected = false;
      S.degraded = false; // the reconnection's own banner takes over; a new socket is told again
      clearInterval(heartbeatTimer);
      stopTyping(true);
      failWaiting("OFFLINE", _("The connection to the server was lost."));
      if (event.code === 4403) {
        fatal = true;
        showBanner("fatal", fatalText || _("Your session may not answer visitors."));
        return;
      }
      scheduleReconnect();
    };
    ws.onerror = function () { /* onclose follows */ };
  }

  var fatalText = "";

  function scheduleReconnect() {
    var base = BACKOFF_S[Math.min(attempt, BACKOFF_S.length - 1)];
    var delay = Math.round(base * (0.8 + Math.random() * 0.4) * 1000);
    attempt += 1;
    var due = Date.now() + delay;
    var tick = function () {
      var left = Math.max(0, Math.ceil((due - Date.now()) / 1000));
      showBanner("retry", left > 0 ? fmt(_("Connection lost. Trying again in %(seconds)s s…"), { seconds: left }) : _("Reconnecting…"));
    };
    tick();
    countdownTimer = setInterval(tick, 1000);
    retryTimer = setTimeout(function () {
      clearInterval(countdownTimer);
      showBanner("retry", _("Reconnecting…"));
      connect();
    }, delay);
  }

  function reconnectNow() {
    if (connected || fatal) return;
    if (socket) { try { socket.close(); } catch (error) { /* closed */ } socket = null; }
    attempt = 0;
    showBanner("retry", _("Reconnecting…"));
    connect();
  }

  function sendRaw(action) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(action));
    return true;
  }

  /** Send an action that gets a reply: resolves with the reply, rejects with {code, error}. */
  function request(action) {
    return new Promise(function (resolve, reject) {
      var ref = nextRef++;
      action.ref = ref;
      if (!sendRaw(action)) {
        reject({ code: "OFFLINE", error: _("You are not connected to the server; try again in a moment.") });
        return;
      }
      waiting[ref] = {
        resolve: resolve,
        reject: reject,
        timer: setTimeout(function () {
          delete waiting[ref];
          reject({ code: "TIMEOUT", error: _("The server did not answer in time.") });
        }, REPLY_TIMEOUT_MS)
      };
    });
  }

  function failWaiting(code, text) {
    Object.keys(waiting).forEach(function (ref) {
      var entry = waiting[ref];
      clearTimeout(entry.timer);
      delete waiting[ref];
      entry.reject({ code: code, error: text, silent: true });
    });
  }

  function receive(message) {
    var ref = message.ref;
    var entry = ref !== undefined && ref !== null ? waiting[ref] : null;
    if (entry) {
      clearTimeout(entry.timer);
      delete waiting[ref];
    }
    if (message.type === "error") {
      if (!S.loaded && message.code === "NOT_AN_OPERATOR") fatalText = message.error;
      if (entry) entry.reject(message);
      else showError(message);
      return;
    }
    var handler = HANDLERS[message.type];
    if (handler) handler(message);
    tell("received", message); // every message, after the console's own handling (supervision.js)
    if (entry) entry.resolve(message);
  }

  /** An action the operator asked for failed: tell them (every error is shown). */
  function showError(error) {
    if (!error) return;
    var title = ERROR_TITLES[error.code] || _("Action impossible");
    toast("error", title, error.error || _("The server refused the action."));
  }

  // ------------------------------------------------------------------ what the server sends

  var HANDLERS = {
    state: onState,
    dialog: onDialog,
    removed: onRemoved,
    ended: onEnded,
    message: onMessage,
    typing: onTyping,
    read: onRead,
    queue: function (m) { S.queue = m.queue || []; afterQueueChange(); },
    operator: onOperator,
    callbacks: function (m) { S.callbacks = m.callbacks || []; renderCallbacks(); renderCounts(); },
    callback: onCallback,
    warned: onWarned,
    late: onLate,
    transcript: onTranscript,
    sent: function () { /* handled where it was asked (deliver) */ },
    taken: function () { /* handled where it was asked */ },
    transferred: function () { /* the "removed" push does the work */ },
    ok: function (m) { if (m.action === "end" && m.dialog) markEnded(m.dialog, "operator", ""); },
    degraded: onDegraded,
    restored: onRestored,
    canned: function () { /* handled where it was asked */ }
  };

  function onState(m) {
    var first = !S.loaded;
    S.loaded = true;
    if (S.degraded) showBanner("degraded", WORDS.degraded);
    else hideBanner();
    var serverNow = parseTime(m.now);
    if (serverNow !== null) clockSkew = serverNow - Date.now();
    S.me = Object.assign({}, S.me, m.operator || {});
    S.dialogs = m.dialogs || [];
    S.queue = m.queue || [];
    S.operators = m.operators || [];
    S.competencies = m.competencies || [];
    S.callbacks = m.callbacks || [];
    // What we knew of each transcript may have missed lines while disconnected: read them again on open.
    var keep = {};
    S.dialogs.concat(S.queue).forEach(function (d) { keep[d.id] = true; });
    Object.keys(S.lines).forEach(function (id) {
      if (!keep[id]) delete S.lines[id];
      else S.lines[id].loaded = false;
    });
    ["unread", "fresh", "typing", "late", "warned", "preview"].forEach(function (key) {
      Object.keys(S[key]).forEach(function (id) { if (!keep[id]) delete S[key][id]; });
    });
    if (S.open) {
      var id = S.open.id;
      if (isMine(id) || findQueued(id)) openDialog(id, { keepScroll: true });
      else if (S.open.kind !== "ended") closeConversation();
      else renderConversation();
    }
    renderAll();
    if (first) setTimeout(function () { $("status-select").disabled = false; }, 0);
  }

  /** The socket is open but the server cannot push to it: say so until it can ("restored"). */
  function onDegraded() {
    S.degraded = true;
    showBanner("degraded", WORDS.degraded);
  }

  /** Pushes reach the console again; the "state" that follows brings what was missed meanwhile. */
  function onRestored() {
    if (!S.degraded) return;
    S.degraded = false;
    hideBanner();
    toast("info", WORDS.restored, "");
  }

  function onDialog(m) {
    var card = m.dialog;
    if (!card) return;
    var known = findDialog(card.id);
    if (known) Object.assign(known, card);
    else S.dialogs.push(card);
    S.queue = S.queue.filter(function (d) { return d.id !== card.id; });
    delete S.ended[card.id];
    // "sound": false is a dialog I took myself: no chime, and not "new" for me.
    if (m.sound) {
      if (!known && !(S.open && S.open.id === card.id)) S.fresh[card.id] = true;
      chime();
    }
    if (S.open && S.open.id === card.id) {
      // The visitor I was looking at in the queue is mine now: the same view, with the composer.
      openDialog(card.id);
    }
    renderAll();
  }

  function onRemoved(m) {
    var id = m.dialog;
    var card = findDialog(id);
    S.dialogs = S.dialogs.filter(function (d) { return d.id !== id; });
    ["unread", "fresh", "typing", "late", "warned"].forEach(function (key) { delete S[key][id]; });
    delete S.drafts[id];
    var who = card ? visitorName(card) : "";
    var kind = m.toKind || (m.to ? "operator" : "queue");
    var title, text;
    if (kind === "operator") {
      title = fmt(_("Conversation transferred to %(operator)s"), { operator: m.to || _("a colleague") });
      text = who ? fmt(_("%(visitor)s is now with %(operator)s."), { visitor: who, operator: m.to || _("a colleague") }) : "";
    } else if (kind === "competency") {
      title = m.to ? fmt(_("Conversation transferred to the skill %(skill)s"), { skill: m.to })
        : _("Conversation transferred to the skill asked for");
      text = fmt(_("%(visitor)s waits in the queue for an advisor with this skill."), { visitor: who || _("The visitor") });
    } else {
      title = _("Conversation sent back to the queue");
      text = fmt(_("%(visitor)s waits for the next available advisor."), { visitor: who || _("The visitor") });
    }
    if (S.open && S.open.id === id) {
      stopTyping();
      if (findQueued(id)) {
        S.open.kind = "queue";
        S.open.card = findQueued(id);
        renderConversation();
      } else {
        closeConversation();
      }
    }
    toast("info", title, text);
    renderAll();
  }

  function onEnded(m) { markEnded(m.dialog, m.reason, m.text, m.line); }

  function markEnded(id, reason, text, line) {
    var card = findDialog(id) || (S.open && S.open.id === id ? S.open.card : null);
    var already = !!S.ended[id];
    S.ended[id] = { reason: reason || (already ? S.ended[id].reason : ""), text: text || (already ? S.ended[id].text : "") };
    S.dialogs = S.dialogs.filter(function (d) { return d.id !== id; });
    ["unread", "fresh", "typing", "late", "warned"].forEach(function (key) { delete S[key][id]; });
    delete S.drafts[id];
    if (line && S.lines[id] && !S.lines[id].items.some(function (l) { return l.id === line.id; })) {
      // The closing sentence the visitor got comes with the push: it ends the transcript I keep.
      S.lines[id].items.push(line);
    }
    if (S.open && S.open.id === id) {
      stopTyping();
      S.open.kind = "ended";
      renderConversation();
    } else if (!already && card && reason !== "operator") {
      toast("info", _("Conversation ended"), fmt(_("%(visitor)s: %(reason)s"), { visitor: visitorName(card), reason: END_REASONS[reason] || _("ended.") }));
    }
    renderAll();
  }

  function onMessage(m) {
    var id = m.dialog;
    var line = m.message;
    if (!line) return;
    var store = lineStore(id);
    var fresh = !store.items.some(function (l) { return l.id === line.id; });
    if (fresh) store.items.push(line);
    S.preview[id] = previewOf(line);
    var card = findDialog(id) || findQueued(id);
    if (card && fresh) {
      var at = line.at || new Date(now()).toISOString();
      if (line.from === "operator") {
        card.waitingOn = "visitor";
        card.waitingSince = at;
        delete S.late[id];
        delete S.warned[id];
      } else if (line.from === "visitor" || line.user) {
        if (card.waitingOn !== "operator" || S.warned[id]) { card.waitingOn = "operator"; card.waitingSince = at; }
        delete S.warned[id];
        if (S.typing[id]) delete S.typing[id];
        var looking = S.open && S.open.id === id && !document.hidden;
        if (isMine(id) && !looking) S.unread[id] = (S.unread[id] || 0) + 1;
      }
    }
    if (fresh) tell("message", { dialog: id, line: line, open: !!(S.open && S.open.id === id) });
    if (S.open && S.open.id === id && fresh) {
      if (store.loaded) appendLine(line);
      renderTyping();
      renderHeader();
      renderAlert();
      renderDetails();
    }
    renderLists();
    updateTitle();
  }

  function previewOf(line) {
    if (line.from === "visitor") return line.user || "";
    if (line.from === "note") return fmt(_("Note: %(text)s"), { text: String(line.text || "") }); // a staff note: plain text already
    var text = plain(line.text);
    if (line.from === "operator") return fmt(_("%(author)s: %(text)s"), { author: authorName(line), text: text });
    if (line.from === "bot") return text ? fmt(_("Bot: %(text)s"), { text: text }) : (line.user || "");
    return text || line.user || "";
  }

  function onTyping(m) {
    if (m.typing) S.typing[m.dialog] = { content: m.content || "", at: Date.now() };
    else delete S.typing[m.dialog];
    if (S.open && S.open.id === m.dialog) renderTyping();
    renderLists();
  }

  function onRead(m) {
    S.readAt[m.dialog] = m.at || new Date(now()).toISOString();
    if (S.open && S.open.id === m.dialog) renderReceipts();
  }

  function onOperator(m) {
    var card = m.operator;
    if (!card) return;
    var index = S.operators.findIndex(function (o) { return o.id === card.id; });
    if (index >= 0) S.operators[index] = Object.assign({}, S.operators[index], card);
    else S.operators.push(card);
    if (card.id === S.me.id) S.me = Object.assign({}, S.me, card);
    renderMe();
    renderTeam();
    renderTransferOptions();
    renderEmpty();
  }

  function onCallback(m) {
    var summary = m.callback;
    if (!summary) return;
    var index = S.callbacks.findIndex(function (c) { return c.id === summary.id; });
    if (summary.status === "closed") S.callbacks = S.callbacks.filter(function (c) { return c.id !== summary.id; });
    else if (index >= 0) S.callbacks[index] = summary;
    else S.callbacks.push(summary);
    renderCallbacks();
    renderCounts();
  }

  function onWarned(m) {
    S.warned[m.dialog] = m.text || _("The visitor will be disconnected for not answering.");
    if (S.open && S.open.id === m.dialog) renderAlert();
    renderLists();
  }

  function onLate(m) {
    S.late[m.dialog] = true;
    if (S.open && S.open.id === m.dialog) { renderAlert(); renderHeader(); }
    renderLists();
    var card = findDialog(m.dialog);
    toast("error", _("A visitor is waiting for your answer"),
      fmt(_("%(visitor)s has been waiting for long and nobody else is available."), { visitor: card ? visitorName(card) : _("A visitor") }),
      { testid: "late-toast" });
  }

  function onTranscript(m) {
    var card = m.dialog;
    if (!card) return;
    var store = lineStore(card.id);
    var firstLoad = !store.everLoaded;
    store.items = m.messages || [];
    store.loaded = true;
    store.everLoaded = true;
    var last = store.items[store.items.length - 1];
    if (last) S.preview[card.id] = previewOf(last);
    var mine = findDialog(card.id);
    if (mine) Object.assign(mine, card);
    else {
      var queued = findQueued(card.id);
      if (queued) Object.assign(queued, card, { place: queued.place });
    }
    if (S.open && S.open.id === card.id) {
      if (S.open.kind !== "ended") S.open.card = mine || findQueued(card.id) || card;
      renderConversation(firstLoad); // a refresh keeps the operator where they were reading
    }
    renderLists();
  }

  // ------------------------------------------------------------------ rendering: the left column

  function renderAll() {
    renderMe();
    renderLists();
    renderTeam();
    renderTransferOptions();
    renderEmpty();
    updateTitle();
  }

  function renderMe() {
    var status = S.me.status || "offline";
    var select = $("status-select");
    // While a change is on its way, news of the old status must not put the select back.
    if (!statusBusy) select.value = status;
    $("status-dot").dataset.status = status;
    $("me-name").textContent = S.me.name || "";
    var held = loadOf(S.me);
    var max = S.me.maxDialogs || 0;
    var load = max ? fmt(ngettext("%(held)s / %(max)s conversation", "%(held)s / %(max)s conversations", held), { held: held, max: max })
      : fmt(ngettext("%(held)s conversation", "%(held)s conversations", held), { held: held });
    $("me-load").textContent = S.loaded ? load + " · " + (STATUS_LABELS[status] || status) : _("Connecting…");
    var hint = $("status-hint");
    if (S.loaded && status !== "available") {
      hint.textContent = status === "offline"
        ? _("You are offline: no conversation will be given to you.")
        : _("You receive no new conversations. Switch to “Available” to receive some.");
      hint.hidden = false;
    } else {
      hint.hidden = true;
    }
  }

  function renderLists() {
    renderDialogs();
    renderQueue();
    renderCounts();
  }

  function renderCounts() {
    var mine = $("mine-count");
    mine.textContent = String(S.dialogs.length);
    mine.classList.toggle("is-hot", attentionCount() > 0);
    $("queue-count").textContent = String(S.queue.length);
    $("queue-count").classList.toggle("is-hot", S.queue.length > 0);
    var open = S.callbacks.filter(function (c) { return c.status === "open"; }).length;
    $("callbacks-count").textContent = String(S.callbacks.length);
    $("callbacks-count").classList.toggle("is-hot", open > 0);
    $("mine-empty").hidden = !S.loaded || S.dialogs.length > 0;
    $("queue-empty").hidden = !S.loaded || S.queue.length > 0;
    $("callbacks-empty").hidden = !S.loaded || S.callbacks.length > 0;
    $("stat-mine").textContent = String(S.dialogs.length);
    $("stat-queue").textContent = String(S.queue.length);
    $("stat-callbacks").textContent = String(S.callbacks.length);
  }

  function turnTag(card, long) {
    if (S.late[card.id]) return el("span", { class: "tag tag-late" }, [long ? _("Late: your turn to answer") : _("Late")]);
    if (card.waitingOn === "operator") return el("span", { class: "tag tag-turn-me" }, [long ? _("Your turn to answer") : _("Your turn")]);
    return el("span", { class: "tag tag-turn-visitor" }, [long ? _("Waiting for the visitor") : _("Visitor's turn")]);
  }

  function renderDialogs() {
    var list = $("dialog-list");
    var focused = document.activeElement && list.contains(document.activeElement)
      ? document.activeElement.closest("[data-dialog-id]") : null;
    var focusId = focused ? focused.dataset.dialogId : null;
    clear(list);
    if (!S.loaded) { list.appendChild(skeletonItems(2)); return; }
    S.dialogs.forEach(function (card) {
      var id = card.id;
      var typing = S.typing[id];
      var unread = S.unread[id] || 0;
      var preview = typing ? _("typing…") + (typing.content ? " “" + typing.content + "”" : "")
        : (S.preview[id] || [card.competency, card.space, (card.language || "").toUpperCase()].filter(Boolean).join(" · ") ||
          _("Live conversation"));
      var tags = [turnTag(card)];
      if (S.fresh[id]) tags.unshift(el("span", { class: "tag tag-new" }, [_("New")]));
      if (S.warned[id]) tags.push(el("span", { class: "tag tag-warn" }, [_("Closing soon")]));
      if (card.competency) tags.push(el("span", { class: "tag tag-comp" }, [card.competency]));
      if (card.transfers) tags.push(el("span", { class: "tag tag-muted" }, [_("Transferred")]));
      var name = visitorName(card);
      var button = el("button", {
        type: "button",
        class: "item-main",
        "aria-current": S.open && S.open.id === id ? "true" : null,
        "aria-label": name + (unread ? ", " + fmt(ngettext("%(count)s unread message", "%(count)s unread messages", unread), { count: unread }) : ""),
        onclick: function () { openDialog(id); }
      }, [
        avatar(name, card.contextId),
        el("span", { class: "item-name" }, [name]),
        el("span", { class: "item-time", title: _("Since the last message"), "data-since": card.waitingSince || "" }, [since(card.waitingSince)]),
        el("span", { class: "item-preview" + (typing ? " is-typing" : "") }, [preview]),
        el("span", { class: "item-side" }, [unread ? el("span", { class: "unread", "aria-hidden": "true" }, [String(unread)]) : null]),
        el("span", { class: "item-tags" }, tags)
      ]);
      var item = el("li", {
        class: "item" + (S.open && S.open.id === id ? " is-open" : "") + (unread || S.fresh[id] ? " is-unread" : ""),
        "data-testid": "dialog-item",
        "data-dialog-id": String(id)
      }, [button]);
      list.appendChild(item);
    });
    if (focusId) {
      var again = list.querySelector('[data-dialog-id="' + focusId + '"] .item-main');
      if (again) again.focus();
    }
  }

  function canServe(card) {
    return !card.competency || (S.me.competencies || []).indexOf(card.competency) >= 0;
  }

  function renderQueue() {
    var list = $("queue-list");
    var focusId = document.activeElement && list.contains(document.activeElement)
      ? (document.activeElement.closest("[data-dialog-id]") || {}).dataset : null;
    var focusKey = focusId ? focusId.dialogId + ":" + (document.activeElement.dataset.testid || "") : null;
    clear(list);
    if (!S.loaded) { list.appendChild(skeletonItems(1)); return; }
    S.queue.forEach(function (card) {
      var id = card.id;
      var name = visitorName(card);
      var able = canServe(card);
      var meta = [card.space, (card.language || "").toUpperCase(), card.transfers ? _("sent back") : ""].filter(Boolean).join(" · ");
      var tags = [];
      if (card.competency) {
        tags.push(el("span", {
          class: "tag tag-comp" + (able ? "" : " is-missing"),
          title: able ? _("Skill asked for") : _("You do not have this skill")
        }, [card.competency]));
      }
      if (meta) tags.push(el("span", { class: "tag tag-muted" }, [meta]));
      var main = el("button", {
        type: "button",
        class: "item-main",
        "aria-label": fmt(_("See %(visitor)s's conversation, place %(place)s"), { visitor: name, place: card.place || "?" }),
        onclick: function () { openDialog(id); }
      }, [
        el("span", { class: "place", "aria-hidden": "true" }, [el("small", { text: _("#") }), String(card.place || "–")]),
        el("span", { class: "item-name" }, [name]),
        el("span", { class: "item-time", title: _("Waiting for"), "data-since": card.queuedAt || "" }, [since(card.queuedAt)]),
        el("span", { class: "item-preview" }, [S.preview[id] || _("Waiting for an advisor")]),
        el("span", { class: "item-side" }),
        el("span", { class: "item-tags" }, tags)
      ]);
      var take = el("button", {
        type: "button",
        class: "btn btn-primary btn-sm",
        "data-testid": "take-button",
        "aria-label": fmt(_("Take %(visitor)s's conversation"), { visitor: name }),
        onclick: function (event) { takeDialog(id, event.currentTarget); }
      }, [_("Take")]);
      var item = el("li", {
        class: "item queue-item" + (S.open && S.open.id === id ? " is-open" : ""),
        "data-testid": "queue-item",
        "data-dialog-id": String(id)
      }, [main, take]);
      list.appendChild(item);
    });
    if (focusKey) {
      var parts = focusKey.split(":");
      var row = list.querySelector('[data-dialog-id="' + parts[0] + '"]');
      var target = row && (parts[1] === "take-button" ? row.querySelector('[data-testid="take-button"]') : row.querySelector(".item-main"));
      if (target) target.focus();
    }
  }

  function skeletonItems(n) {
    var fragment = document.createDocumentFragment();
    for (var i = 0; i < n; i++) {
      fragment.appendChild(el("li", { class: "item", "aria-hidden": "true" }, [
        el("div", { class: "skeleton", style: "height:52px;margin:6px 4px;border-radius:10px" })
      ]));
    }
    return fragment;
  }

  function renderCallbacks() {
    var list = $("callbacks-list");
    var active = document.activeElement;
    var keepFocus = active && list.contains(active) ? {
      id: (active.closest("[data-callback-id]") || {}).dataset,
      testid: active.dataset ? active.dataset.testid : null,
      value: active.tagName === "TEXTAREA" ? active.value : null
    } : null;
    var outcomes = {};
    list.querySelectorAll("textarea[data-callback-outcome]").forEach(function (t) { outcomes[t.dataset.callbackOutcome] = t.value; });
    clear(list);
    if (!S.loaded) return;
    S.callbacks.forEach(function (cb) {
      var mineTaken = cb.status === "taken" && !!cb.operatorLogin && cb.operatorLogin === S.me.login;
      var phone = String(cb.phone || "");
      var top = el("div", { class: "callback-top" }, [
        el("span", { class: "callback-name" }, [cb.name || _("No name")]),
        el("span", { class: "callback-age", title: cb.createdAt ? fmtDate.format(new Date(cb.createdAt)) : "" }, [ago(cb.createdAt)])
      ]);
      var meta = el("div", { class: "callback-meta" }, [
        cb.preferredTime ? el("div", null, [el("span", null, [_("When: ")]), cb.preferredTime]) : null,
        cb.bot ? el("div", null, [el("span", null, [_("Bot: ")]), cb.bot + (cb.language ? " · " + cb.language.toUpperCase() : "")]) : null
      ]);
      var status;
      if (cb.status === "taken") {
        status = el("span", { class: "tag " + (mineTaken ? "tag-turn-me" : "tag-turn-visitor") },
          [mineTaken ? _("Taken by you") : fmt(_("Taken by %(operator)s"), { operator: cb.operator || _("a colleague") })]);
      } else {
        status = el("span", { class: "tag tag-new" }, [_("To call back")]);
      }
      var actions = el("div", { class: "callback-actions" }, [status]);
      if (cb.status === "open") {
        actions.appendChild(el("button", {
          type: "button", class: "btn btn-primary btn-sm", "data-testid": "callback-take",
          onclick: function (event) { callbackAct(cb.id, "take", "", event.currentTarget); }
        }, [_("I'll call back")]));
      }
      if (cb.status === "open" || mineTaken) {
        actions.appendChild(el("button", {
          type: "button", class: "btn btn-secondary btn-sm", "data-testid": "callback-close",
          "aria-expanded": S.closing[cb.id] ? "true" : "false",
          onclick: function () { S.closing[cb.id] = !S.closing[cb.id]; renderCallbacks(); focusOutcome(cb.id); }
        }, [_("Mark as done")]));
      }
      var form = null;
      if (S.closing[cb.id]) {
        var fieldId = "outcome-" + cb.id;
        var area = el("textarea", {
          id: fieldId, "data-testid": "callback-outcome", "data-callback-outcome": String(cb.id), maxlength: "2000",
          placeholder: _("E.g.: called back, appointment on the 12th at 10 am")
        });
        area.value = outcomes[cb.id] || "";
        form = el("form", {
          class: "callback-close-form",
          onsubmit: function (event) {
            event.preventDefault();
            callbackAct(cb.id, "close", area.value, event.submitter || null);
          }
        }, [
          el("label", { for: fieldId }, [_("Outcome of the call")]),
          area,
          el("div", { class: "row" }, [
            el("button", { type: "button", class: "btn btn-ghost btn-sm", onclick: function () { delete S.closing[cb.id]; renderCallbacks(); } }, [_("Cancel")]),
            el("button", { type: "submit", class: "btn btn-primary btn-sm", "data-testid": "callback-confirm" }, [_("Close the callback")])
          ])
        ]);
      }
      list.appendChild(el("li", {
        class: "callback" + (cb.status === "taken" ? " is-taken" : ""),
        "data-testid": "callback-item",
        "data-callback-id": String(cb.id),
        "data-status": cb.status
      }, [
        top,
        el("a", { class: "callback-phone", href: "tel:" + phone.replace(/[^0-9+]/g, ""), title: fmt(_("Call %(phone)s"), { phone: phone }) }, [icon("phone"), phone]),
        meta.childNodes.length ? meta : null,
        cb.reason ? el("p", { class: "callback-reason" }, [cb.reason]) : null,
        actions,
        form
      ]));
    });
    if (keepFocus && keepFocus.id) {
      var row = list.querySelector('[data-callback-id="' + keepFocus.id.callbackId + '"]');
      var target = row && keepFocus.testid ? row.querySelector('[data-testid="' + keepFocus.testid + '"]') : null;
      if (target) target.focus();
    }
  }

  function focusOutcome(id) {
    var area = document.querySelector('[data-callback-outcome="' + id + '"]');
    if (!area) return;
    area.focus({ preventScroll: true });
    area.closest("form").scrollIntoView({ block: "nearest" });
  }

  /** How many dialogs the operator holds, as the server counts them (its "operator" pushes keep it live). */
  function loadOf(op) {
    return typeof op.activeDialogs === "number" ? op.activeDialogs : (op.id === S.me.id ? S.dialogs.length : 0);
  }

  function hasRoom(op) { return loadOf(op) < (op.maxDialogs || 0); }

  function renderTeam() {
    var list = $("team-list");
    clear(list);
    var order = { available: 0, busy: 1, away: 2, offline: 3 };
    var team = S.operators.slice().sort(function (a, b) {
      return (order[a.status] - order[b.status]) || String(a.name).localeCompare(String(b.name), LANG);
    });
    var online = team.filter(function (o) { return o.status === "available"; });
    var free = online.filter(hasRoom).length;
    $("team-summary").textContent = S.loaded
      ? fmt(ngettext("%(count)s available of %(team)s", "%(count)s available of %(team)s", online.length), { count: online.length, team: team.length }) +
        (online.length ? " · " + fmt(ngettext("%(count)s free", "%(count)s free", free), { count: free }) : "")
      : "";
    team.forEach(function (op) {
      var me = op.id === S.me.id;
      var held = loadOf(op);
      var max = op.maxDialogs || 0;
      var full = max > 0 && held >= max;
      var load = max ? Math.min(100, Math.round(100 * held / max)) : 0;
      var face = avatar(op.name, op.login);
      face.appendChild(el("span", { class: "status-dot", "data-status": op.status }));
      list.appendChild(el("li", {
        class: (op.status === "offline" ? "is-offline" : "") + (full ? " is-full" : ""),
        "data-operator-login": op.login
      }, [
        face,
        el("span", { class: "team-name" }, [
          el("strong", null, [op.name + (me ? " " + _("(you)") : "")]),
          el("small", null, [STATUS_LABELS[op.status] || op.status,
            (op.competencies && op.competencies.length ? " · " + op.competencies.join(", ") : "")])
        ]),
        el("span", {
          class: "team-load",
          title: fmt(ngettext("%(held)s conversation under way of %(max)s at most", "%(held)s conversations under way of %(max)s at most", held), { held: held, max: max }) +
            (full ? " " + _("(full)") : "")
        }, [
          held + " / " + max,
          el("span", { class: "load-bar" }, [el("i", { style: "width:" + load + "%" })])
        ])
      ]));
    });
  }

  function renderEmpty() {
    var status = S.me.status;
    $("empty-available").hidden = !S.loaded || status === "available";
    var text = $("empty-text");
    if (!S.loaded) text.textContent = _("Connecting to the server…");
    else if (S.queue.length) text.textContent = fmt(ngettext("%(count)s visitor waits in the queue. Take one, or choose a conversation on the left.", "%(count)s visitors wait in the queue. Take one, or choose a conversation on the left.", S.queue.length), { count: S.queue.length });
    else if (S.dialogs.length) text.textContent = _("Choose a conversation on the left to answer it.");
    else if (status === "available") text.textContent = _("You are available: new conversations will arrive here, with a sound.");
    else text.textContent = _("Switch to “Available” to receive the visitors who ask for an advisor.");
  }

  function updateTitle() {
    var n = attentionCount();
    document.title = n ? "(" + n + ") " + TITLE : TITLE;
  }

  // ------------------------------------------------------------------ rendering: the open conversation

  function openDialog(id, options) {
    options = options || {};
    var card = findDialog(id);
    var kind = "mine";
    if (!card) { card = findQueued(id); kind = "queue"; }
    if (!card) return;
    var switching = !S.open || S.open.id !== id;
    var changed = !switching && S.open.kind !== kind;
    if (switching) {
      saveDraft();
      stopTyping();
      closeCanned();
    }
    S.open = { id: id, kind: kind, card: card };
    delete S.fresh[id];
    delete S.unread[id];
    if (switching) {
      // The composer holds this dialog's draft (nothing for a dialog that is not mine yet).
      var input = $("composer-input");
      input.value = S.drafts[id] || "";
      autosize();
      renderCount();
    }
    if (switching || changed) renderConversation(switching);
    var store = lineStore(id);
    store.failed = false;
    request({ action: "open", dialog: id }).catch(function (error) {
      if (!error.silent) showError(error);
      store.failed = true;
      if (!store.loaded && S.open && S.open.id === id) renderTranscript();
    });
    renderLists();
    updateTitle();
    if ((switching || changed) && !options.keepScroll && kind === "mine" && !options.noFocus) {
      $("composer-input").focus({ preventScroll: true });
    }
  }

  function closeConversation() {
    saveDraft();
    stopTyping();
    closeCanned();
    S.open = null;
    renderConversation();
    renderLists();
  }

  function renderConversation(scrollToEnd) {
    var open = S.open;
    // Phones show the list or the conversation, one at a time (console.css).
    document.body.classList.toggle("is-reading", !!open);
    if (!open) showDetails(false);
    tell("shown", shownDetail());
    // Reading a dialog that is not mine (supervision.js) takes the place of the empty state.
    $("empty-state").hidden = !!open || document.body.classList.contains("is-watching");
    $("conversation").hidden = !open;
    $("visitor-panel").hidden = !open;
    $("actions-panel").hidden = !open || open.kind !== "mine";
    if (!open) { renderEmpty(); return; }
    renderHeader();
    renderTranscript(scrollToEnd);
    renderTyping();
    renderAlert();
    renderComposerMode();
    renderDetails();
    renderTransferOptions();
  }

  /** Tablets and phones: the visitor and the actions over the conversation, or not (console.css). */
  function showDetails(shown) {
    document.body.classList.toggle("show-details", shown);
    $("details-toggle").setAttribute("aria-expanded", shown ? "true" : "false");
  }

  /** What plugins are told of the open conversation: its id, kind and last line where the visitor wrote. */
  function shownDetail() {
    if (!S.open) return null;
    var items = lineStore(S.open.id).items;
    var last = null;
    for (var i = items.length - 1; i >= 0 && !last; i--) if (items[i].user && String(items[i].user).trim()) last = items[i];
    return { id: S.open.id, kind: S.open.kind, lastVisitorLine: last ? last.id : null };
  }

  function renderHeader() {
    var open = S.open;
    if (!open) return;
    var card = open.card;
    var name = visitorName(card);
    var face = $("chat-avatar");
    face.textContent = initials(name);
    face.style.setProperty("--hue", String(hue(card.contextId || name)));
    $("chat-name").textContent = name;
    $("chat-sub").textContent = [card.bot, card.space, (card.language || "").toUpperCase()].filter(Boolean).join(" · ");
    var badges = $("chat-badges");
    clear(badges);
    if (open.kind === "ended") {
      badges.appendChild(el("span", { class: "tag tag-ended" }, [_("Ended")]));
    } else if (open.kind === "queue") {
      badges.appendChild(el("span", { class: "tag tag-turn-me" }, [fmt(_("Queue · #%(place)s"), { place: card.place || "?" })]));
      badges.appendChild(el("span", { class: "tag tag-turn-visitor", title: _("Waiting for"), "data-since": card.queuedAt || "" },
        [since(card.queuedAt) || JUST_NOW]));
    } else {
      var turn = turnTag(card, true);
      turn.appendChild(el("span", { class: "tag-time", "data-since": card.waitingSince || "", title: _("Since the last message") },
        [since(card.waitingSince) || JUST_NOW]));
      badges.appendChild(turn);
    }
    if (card.competency) badges.appendChild(el("span", { class: "tag tag-comp" }, [card.competency]));
  }

  var lastRendered = null; // {id, lastDay, lastAuthorKey}

  function renderTranscript(scrollToEnd) {
    var box = $("transcript");
    var open = S.open;
    if (!open) return;
    var store = lineStore(open.id);
    var stick = scrollToEnd || nearBottom(box);
    var keepTop = box.scrollTop;
    clear(box);
    lastRendered = { id: open.id, day: null, author: null };
    if (!store.loaded && !store.everLoaded && store.failed) {
      box.appendChild(localNotice(_("This conversation could not be loaded. It will be loaded again on reconnection.")));
      return;
    }
    if (!store.loaded && !store.everLoaded) {
      box.appendChild(el("div", { class: "transcript-loading", "aria-label": _("Loading the conversation") }, [
        el("div", { class: "skeleton l" }), el("div", { class: "skeleton r" }), el("div", { class: "skeleton l" })
      ]));
      return;
    }
    store.items.forEach(function (line) { appendLine(line, true); });
    store.pending.forEach(function (p) { box.appendChild(pendingNode(p)); });
    if (open.kind === "ended" && S.ended[open.id]) {
      var info = S.ended[open.id];
      var shown = store.items.some(function (l) { return l.from === "notice" && info.text && plain(l.text) === plain(info.text); });
      if (!shown) box.appendChild(localNotice(END_REASONS[info.reason] || _("Conversation ended.")));
    }
    renderReceipts();
    if (stick) scrollToBottom(); else box.scrollTop = keepTop;
  }

  /** A file the visitor sent: its name and size, and the download (only the server's own upload links). */
  function fileCard(file) {
    var url = String(file.url || "");
    var link = /^\/livechat\/uploads\/[0-9]+\/?$/.test(url)
      ? el("a", { class: "file-download", href: url, download: "", "data-testid": "file-download" }, [icon("down"), _("Download")])
      : null;
    return el("div", { class: "bubble bubble-visitor bubble-file" }, [
      el("div", { class: "file-card", "data-testid": "file" }, [
        el("span", { class: "file-icon" }, [icon("clip")]),
        el("span", { class: "file-text" }, [
          el("span", { class: "file-name", "data-testid": "file-name" }, [String(file.name || "fichier")]),
          el("span", { class: "file-size" }, [fileSize(file.size) + (file.contentType ? " · " + fileKind(file.contentType) : "")])
        ]),
        link
      ])
    ]);
  }

  function fileSize(bytes) {
    var n = Number(bytes) || 0;
    var one = new Intl.NumberFormat(LANG, { maximumFractionDigits: 1 });
    if (n < 1024) return fmt(_("%(size)s B"), { size: n });
    if (n < 1024 * 1024) return fmt(_("%(size)s KB"), { size: one.format(n < 10240 ? n / 1024 : Math.round(n / 1024)) });
    return fmt(_("%(size)s MB"), { size: one.format(n / 1048576) });
  }

  function fileKind(type) {
    if (/^image\//.test(type)) return _("image");
    if (type === "application/pdf") return "PDF";
    if (/^text\//.test(type)) return _("text");
    return _("document");
  }

  function localNotice(text) {
    return el("div", { class: "notice-row" }, [el("div", { class: "notice notice-local" }, [text])]);
  }

  function authorName(line) {
    if (line.from === "operator") {
      return line.operator && line.operator !== S.me.name ? line.operator : _("You");
    }
    return "";
  }

  function appendLine(line, bulk) {
    var box = $("transcript");
    var stick = !bulk && nearBottom(box);
    var t = parseTime(line.at);
    if (t !== null) {
      var day = new Date(t).toDateString();
      if (lastRendered.day !== day) {
        box.appendChild(el("div", { class: "day", role: "separator" }, [dayLabel(t)]));
        lastRendered.day = day;
        lastRendered.author = null;
      }
    }
    var time = clock(line.at);
    var hasVisitorText = line.user && String(line.user).trim();
    if (line.from === "visitor" || ((line.from === "bot" || line.from === "notice") && hasVisitorText)) {
      var said = line.file ? fileCard(line.file) : el("div", { class: "bubble bubble-visitor" }, [String(line.user || "")]);
      box.appendChild(bubble("visitor", line, said, _("Visitor"), time));
    }
    if (line.from === "operator" || (line.from === "bot" && plain(line.text))) {
      var content = el("div", { class: "bubble bubble-" + line.from });
      content.appendChild(sanitize(line.text));
      var who = line.from === "bot" ? (S.open && S.open.card && S.open.card.bot ? S.open.card.bot : _("Bot")) : authorName(line);
      box.appendChild(bubble(line.from, line, content, who, time));
    }
    if (line.from === "note") {
      // A staff note (never the visitor's): drawn by supervision.js.
      var drawn = { line: line, time: time, node: null };
      tell("note", drawn);
      if (drawn.node) box.appendChild(drawn.node);
      lastRendered.author = null;
    }
    if (line.from === "notice" && plain(line.text)) {
      var notice = el("div", { class: "notice", "data-testid": "line", "data-from": "notice", "data-line-id": String(line.id) });
      notice.appendChild(sanitize(line.text));
      box.appendChild(el("div", { class: "notice-row" }, [notice, time ? el("div", { class: "notice-time" }, [time]) : null]));
      lastRendered.author = null;
    }
    if (!bulk) {
      renderReceipts();
      if (stick) scrollToBottom();
      else $("jump-bottom").hidden = false;
    }
  }

  function bubble(from, line, content, who, time) {
    content.dataset.testid = "line";
    content.dataset.from = from;
    content.dataset.lineId = String(line.id);
    var key = from + ":" + (from === "operator" ? (line.operator || "") : "");
    var same = lastRendered.author === key;
    lastRendered.author = key;
    var out = from === "operator" || from === "bot";
    var author = el("div", { class: "msg-author" + (from === "bot" ? " author-bot" : "") }, [
      from === "bot" ? icon("bot") : null, who
    ]);
    var meta = el("div", { class: "msg-meta" }, [time ? el("time", { datetime: line.at || "" }, [time]) : null]);
    if (from === "operator") meta.appendChild(el("span", { class: "receipt", "data-at": line.at || "" }));
    tell("line", { line: line, from: from, meta: meta });
    return el("div", {
      class: "msg " + (out ? "out" : "in") + (same ? " same-author" : ""),
      "data-author": from
    }, [author, content, meta]);
  }

  function pendingNode(p) {
    var content = el("div", { class: "bubble bubble-operator" }, [p.text]);
    content.style.whiteSpace = "pre-wrap";
    var meta = el("div", { class: "msg-meta" }, p.failed ? [
      _("Not sent") + " · ",
      el("button", { type: "button", class: "msg-retry", onclick: function () { retryPending(p); } }, [_("Retry")]),
      " · ",
      el("button", { type: "button", class: "msg-retry", onclick: function () { dropPending(p); } }, [_("Delete")])
    ] : [_("Sending…")]);
    return el("div", { class: "msg out" + (p.failed ? " failed" : " pending"), "data-pending": String(p.ref) }, [
      el("div", { class: "msg-author" }, [_("You")]), content, meta
    ]);
  }

  function renderReceipts() {
    if (!S.open) return;
    var readAt = parseTime(S.readAt[S.open.id]);
    var receipts = $("transcript").querySelectorAll(".receipt");
    // Only my last message says whether the visitor has read it (so far).
    receipts.forEach(function (node, index) {
      clear(node);
      var at = parseTime(node.dataset.at);
      var read = readAt !== null && at !== null && at <= readAt;
      if (index !== receipts.length - 1) return;
      node.appendChild(document.createTextNode(" · "));
      node.appendChild(icon(read ? "checks" : "check", read ? "is-read" : ""));
      node.appendChild(document.createTextNode(" " + (read ? _("Read") : _("Sent"))));
    });
  }

  function nearBottom(box) { return box.scrollHeight - box.scrollTop - box.clientHeight < 80; }

  function scrollToBottom() {
    var box = $("transcript");
    box.scrollTop = box.scrollHeight;
    $("jump-bottom").hidden = true;
    // Images load later and grow the transcript: stay at the bottom once they do.
    box.querySelectorAll("img").forEach(function (img) {
      if (!img.complete) img.addEventListener("load", function () { if (nearBottom(box) || true) box.scrollTop = box.scrollHeight; }, { once: true });
    });
  }

  function renderTyping() {
    var node = $("visitor-typing");
    var open = S.open;
    var state = open && open.kind !== "ended" ? S.typing[open.id] : null;
    if (state && Date.now() - state.at > VISITOR_TYPING_TTL_MS) { delete S.typing[open.id]; state = null; }
    var box = $("transcript");
    var stick = nearBottom(box);
    node.hidden = !state;
    $("typing-content").textContent = state ? state.content : "";
    if (stick) box.scrollTop = box.scrollHeight;
  }

  function renderAlert() {
    var node = $("dialog-alert");
    var open = S.open;
    clear(node);
    node.className = "dialog-alert";
    if (!open || open.kind !== "mine") { node.hidden = true; return; }
    if (S.late[open.id]) {
      node.classList.add("is-late");
      node.appendChild(icon("alert"));
      node.appendChild(el("span", null, [_("The visitor has been waiting for your answer for long.")]));
      node.hidden = false;
    } else if (S.warned[open.id]) {
      node.appendChild(icon("alert"));
      node.appendChild(el("span", { "data-testid": "dialog-warning" }, [fmt(_("Visitor warned: %(text)s"), { text: plain(S.warned[open.id]) })]));
      node.hidden = false;
    } else {
      node.hidden = true;
    }
  }

  function renderComposerMode() {
    var open = S.open;
    var composer = $("composer");
    var off = $("composer-off");
    var action = $("composer-off-action");
    if (!open) return;
    if (open.kind === "mine") {
      composer.hidden = false;
      off.hidden = true;
      return;
    }
    composer.hidden = true;
    off.hidden = false;
    action.hidden = false;
    if (open.kind === "queue") {
      $("composer-off-text").textContent = fmt(_("This visitor waits for an advisor (place #%(place)s). Take the conversation to answer."), { place: open.card.place || "?" });
      action.textContent = _("Take the conversation");
      action.onclick = function () { takeDialog(open.id, action); };
    } else {
      var info = S.ended[open.id] || {};
      $("composer-off-text").textContent = (END_REASONS[info.reason] || _("This conversation is over.")) + " " + _("The visitor is back with the bot.");
      action.textContent = _("Close");
      action.onclick = function () { delete S.ended[open.id]; closeConversation(); };
    }
  }

  function fact(label, value, node) {
    var dd = el("dd");
    if (node) dd.appendChild(node);
    else if (value) dd.textContent = value;
    else dd.appendChild(el("span", { class: "none" }, ["—"]));
    return [el("dt", null, [label]), dd];
  }

  function languageName(code) {
    if (!code) return "";
    try {
      var names = new Intl.DisplayNames([LANG], { type: "language" });
      var name = names.of(code);
      if (name && name !== code) return name.charAt(0).toUpperCase() + name.slice(1) + " (" + code + ")";
    } catch (error) { /* old browser */ }
    return code;
  }

  function renderDetails() {
    var box = $("visitor-details");
    clear(box);
    var open = S.open;
    if (!open) return;
    var card = open.card;
    var v = card.visitor || {};
    var name = visitorName(card);
    var face = avatar(name, card.contextId);
    box.appendChild(el("div", { class: "visitor-card" }, [
      face,
      el("div", null, [el("strong", null, [name]), el("small", null, [
        open.kind === "queue" ? _("In the queue") : open.kind === "ended" ? _("Conversation ended") : _("In conversation with you")
      ])])
    ]));
    var page = null;
    if (v.userUrl) {
      var safe = safeUrl(v.userUrl, false);
      var shown = String(v.userUrl).replace(/^https?:\/\//, "");
      page = safe && /^https?:/i.test(safe)
        ? el("a", { href: safe, target: "_blank", rel: "noopener noreferrer", title: v.userUrl, "data-testid": "visitor-url" }, [el("span", { class: "url" }, [shown]), icon("external")])
        : el("span", null, [String(v.userUrl)]);
    }
    var facts = el("dl", { class: "facts" });
    [
      fact(_("Language"), languageName(card.language)),
      fact(_("Space"), card.space),
      fact(_("Page"), null, page),
      fact(_("Browser"), v.browser),
      fact(_("System"), v.os),
      fact(_("Skill"), card.competency || _("None")),
      open.kind === "ended" ? fact(_("Status"), _("Ended"))
        : open.kind === "queue"
        ? fact(_("Waiting"), card.queuedAt ? fmt(_("since %(time)s (%(duration)s)"), { time: clock(card.queuedAt), duration: since(card.queuedAt) || JUST_NOW }) : "")
        : fact(_("Whose turn"), card.waitingSince ? fmt(_("%(turn)s, since %(time)s"), { turn: card.waitingOn === "operator" ? _("Your turn") : _("Visitor's turn"), time: clock(card.waitingSince) }) : ""),
      fact(_("Taken on"), card.assignedAt ? clock(card.assignedAt) : (open.kind === "queue" ? _("not yet") : "")),
      fact(_("Transfers"), String(card.transfers || 0)),
      fact(_("Arrived"), v.firstActivity ? fmtDate.format(new Date(v.firstActivity)) : ""),
      fact(_("Bot"), card.bot),
      fact(_("Context"), null, el("span", { class: "mono", title: card.contextId }, [card.contextId || "—"]))
    ].forEach(function (pair) { facts.appendChild(pair[0]); facts.appendChild(pair[1]); });
    box.appendChild(facts);
    var vars = v.variables || {};
    var keys = Object.keys(vars);
    if (keys.length) {
      box.appendChild(el("h3", { class: "vars-title" }, [_("Variables")]));
      var dl = el("dl", { class: "vars" });
      keys.sort().forEach(function (key) {
        var value = vars[key];
        dl.appendChild(el("dt", null, [key]));
        dl.appendChild(el("dd", null, [typeof value === "string" ? value : JSON.stringify(value)]));
      });
      box.appendChild(dl);
    }
  }

  var transferShown = ""; // what the transfer selects show, to leave them alone (and open) when nothing changed

  function renderTransferOptions() {
    var opSelect = $("transfer-operator");
    var compSelect = $("transfer-competency");
    // Only colleagues who would get the dialog now: available, with a free slot.
    var others = S.operators.filter(function (o) { return o.id !== S.me.id && o.status === "available" && hasRoom(o); })
      .sort(function (a, b) { return String(a.name).localeCompare(String(b.name), LANG); });
    // A competency needs another available colleague who has it (all busy: the dialog waits in the queue for them).
    var skills = S.competencies.map(function (name) {
      var able = S.operators.filter(function (o) {
        return o.id !== S.me.id && o.status === "available" && (o.competencies || []).indexOf(name) >= 0;
      });
      return { name: name, online: able.length, free: able.filter(hasRoom).length };
    });
    var shown = JSON.stringify([others.map(function (o) { return [o.login, o.name, loadOf(o), o.maxDialogs, o.competencies]; }), skills]);
    if (shown !== transferShown) {
      transferShown = shown;
      var keepOp = opSelect.value;
      var keepComp = compSelect.value;
      clear(opSelect);
      clear(compSelect);
      opSelect.appendChild(el("option", { value: "" }, [others.length ? _("Choose an advisor…") : _("No available advisor with room")]));
      others.forEach(function (o) {
        var known = o.competencies && o.competencies.length ? " (" + o.competencies.join(", ") + ")" : "";
        opSelect.appendChild(el("option", { value: o.login, "data-name": o.name }, [o.name + known + " · " + loadOf(o) + "/" + o.maxDialogs]));
      });
      opSelect.disabled = !others.length;
      var reachable = skills.filter(function (k) { return k.online > 0; }).length;
      compSelect.appendChild(el("option", { value: "" }, [
        !skills.length ? _("No skill") : reachable ? _("Choose a skill…") : _("No colleague available")
      ]));
      skills.forEach(function (k) {
        var note = !k.online ? " — " + _("nobody available") : !k.free ? " — " + _("all busy (queue)") : "";
        compSelect.appendChild(el("option", { value: k.name, disabled: !k.online }, [k.name + note]));
      });
      compSelect.disabled = !reachable;
      if (keepOp && others.some(function (o) { return o.login === keepOp; })) opSelect.value = keepOp;
      if (keepComp && skills.some(function (k) { return k.name === keepComp && k.online; })) compSelect.value = keepComp;
    }
    renderTransferButton();
  }

  function renderTransferButton() {
    var op = $("transfer-operator");
    var comp = $("transfer-competency");
    var button = $("transfer-button");
    var label = _("Transfer");
    if (op.value) label = fmt(_("Transfer to %(operator)s"), { operator: op.options[op.selectedIndex].dataset.name || op.value });
    else if (comp.value) label = fmt(_("Transfer to “%(skill)s”"), { skill: comp.value });
    $("transfer-label").textContent = label;
    button.disabled = !(op.value || comp.value) || !S.open || S.open.kind !== "mine";
  }

  // ------------------------------------------------------------------ actions

  var statusBusy = false;

  /** The name visitors see: saved on Enter or when the field is left, if it changed. */
  function saveShownName(event) {
    if (event) event.preventDefault();
    var input = $("shown-name");
    var state = $("shown-name-state");
    var wanted = input.value.replace(/\s+/g, " ").trim();
    if (wanted === (S.me.displayName || "")) return;
    request({ action: "name", name: wanted }).then(function (reply) {
      if (reply && reply.operator) onOperator(reply);
      input.value = S.me.displayName || "";
      state.textContent = _("Saved: visitors see this name from now on.");
    }, function (error) {
      state.textContent = error.error || "";
    });
  }

  function setStatus(status) {
    var select = $("status-select");
    var previous = S.me.status;
    statusBusy = true;
    $("status-dot").dataset.status = status;
    request({ action: "status", status: status }).then(function () {
      statusBusy = false;
      renderMe();
      renderEmpty();
    }, function (error) {
      statusBusy = false;
      select.value = previous;
      $("status-dot").dataset.status = previous;
      showError(error);
    });
  }

  function takeDialog(id, button) {
    if (button) { button.classList.add("is-busy"); button.setAttribute("aria-busy", "true"); }
    request({ action: "take", dialog: id }).then(function (reply) {
      // The "dialog" push for it comes with "sound": false (it may arrive before or after this reply).
      var card = reply.dialog;
      if (card && !findDialog(card.id)) S.dialogs.push(card);
      S.queue = S.queue.filter(function (d) { return d.id !== id; });
      renderAll();
      openDialog(id);
    }, function (error) {
      if (button) { button.classList.remove("is-busy"); button.removeAttribute("aria-busy"); }
      showError(error);
    });
  }

  function sendMessage() {
    var open = S.open;
    var input = $("composer-input");
    var text = input.value.trim();
    if (!open || open.kind !== "mine" || !text) return;
    if (text.length > MESSAGE_MAX) {
      toast("error", _("Message too long"), fmt(_("A message has at most %(count)s characters."), { count: MESSAGE_MAX }));
      return;
    }
    input.value = "";
    delete S.drafts[open.id];
    autosize();
    renderCount();
    stopTyping();
    closeCanned();
    var extra = {}; // what plugins add to the message (suggestions.js: the suggestion it came from)
    var sending = { dialog: open.id, text: text, extra: extra, handled: false };
    tell("sending", sending);
    if (sending.handled) return; // a private note (supervision.js): not a message to the visitor
    deliver(open.id, { text: text, failed: false, extra: extra });
  }

  function deliver(id, pending) {
    var store = lineStore(id);
    var action = Object.assign({}, pending.extra || {}, { action: "send", dialog: id, text: pending.text });
    var promise = request(action);
    pending.ref = action.ref || ("local" + Date.now());
    store.pending.push(pending);
    if (S.open && S.open.id === id) {
      $("transcript").appendChild(pendingNode(pending));
      scrollToBottom();
    }
    promise.then(function (reply) {
      store.pending = store.pending.filter(function (p) { return p !== pending; });
      var line = reply.message;
      if (line && !store.items.some(function (l) { return l.id === line.id; })) onMessage({ dialog: id, message: line });
      if (S.open && S.open.id === id) {
        var node = $("transcript").querySelector('[data-pending="' + pending.ref + '"]');
        if (node) node.remove();
      }
    }, function (error) {
      pending.failed = true;
      if (S.open && S.open.id === id) renderTranscript();
      showError(error);
    });
  }

  function retryPending(p) {
    var id = S.open && S.open.id;
    if (!id) return;
    var store = lineStore(id);
    store.pending = store.pending.filter(function (x) { return x !== p; });
    renderTranscript();
    deliver(id, { text: p.text, failed: false, extra: p.extra });
  }

  function dropPending(p) {
    var id = S.open && S.open.id;
    if (!id) return;
    var store = lineStore(id);
    store.pending = store.pending.filter(function (x) { return x !== p; });
    renderTranscript();
  }

  function transfer() {
    var open = S.open;
    if (!open || open.kind !== "mine") return;
    var op = $("transfer-operator").value;
    var comp = $("transfer-competency").value;
    if (!op && !comp) return;
    var button = $("transfer-button");
    button.classList.add("is-busy");
    var action = { action: "transfer", dialog: open.id };
    if (op) action.operator = op; else action.competency = comp;
    request(action).then(function () {
      button.classList.remove("is-busy");
      $("transfer-operator").value = "";
      $("transfer-competency").value = "";
      renderTransferButton();
    }, function (error) {
      button.classList.remove("is-busy");
      showError(error);
    });
  }

  function askEnd() {
    var open = S.open;
    if (!open || open.kind !== "mine") return;
    var modal = $("end-dialog");
    $("end-dialog-text").textContent = fmt(_("You are ending the conversation with %(visitor)s. The visitor will be told and will be back with the bot."), { visitor: visitorName(open.card) });
    var id = open.id;
    modal.returnValue = "";
    modal.onclose = function () {
      if (modal.returnValue !== "confirm") return;
      var button = $("end-button");
      button.classList.add("is-busy");
      request({ action: "end", dialog: id }).then(function () {
        button.classList.remove("is-busy");
      }, function (error) {
        button.classList.remove("is-busy");
        showError(error);
      });
    };
    if (typeof modal.showModal === "function") modal.showModal();
    else if (window.confirm(_("End the conversation?"))) { modal.returnValue = "confirm"; modal.onclose(); }
  }

  function callbackAct(id, what, outcome, button) {
    if (button) button.classList.add("is-busy");
    request({ action: "callback", id: id, do: what, outcome: outcome || "" }).then(function (reply) {
      if (what === "close") {
        delete S.closing[id];
        toast("success", _("Callback closed"), (reply.callback && reply.callback.name ? reply.callback.name + " — " : "") + _("thank you!"));
      }
      renderCallbacks();
    }, function (error) {
      if (button) button.classList.remove("is-busy");
      showError(error);
    });
  }

  // ------------------------------------------------------------------ typing (mine, to the visitor)

  var typing = { dialog: null, active: false, lastSent: 0, pause: null };

  function noteTyping() {
    var open = S.open;
    if (!open || open.kind !== "mine") return;
    var quiet = { dialog: open.id, quiet: false };
    tell("typing", quiet);
    if (quiet.quiet) { stopTyping(); return; } // writing a private note: the visitor sees no typing
    var text = $("composer-input").value;
    if (!text.trim() || /^\/\S*$/.test(text)) { stopTyping(); return; }
    var t = Date.now();
    if (typing.active && typing.dialog !== open.id) stopTyping();
    if (!typing.active || t - typing.lastSent >= TYPING_EVERY_MS) {
      if (sendRaw({ action: "typing", dialog: open.id, typing: true })) {
        typing.dialog = open.id;
        typing.active = true;
        typing.lastSent = t;
      }
    }
    clearTimeout(typing.pause);
    typing.pause = setTimeout(function () { stopTyping(); }, TYPING_PAUSE_MS);
  }

  function stopTyping(silently) {
    clearTimeout(typing.pause);
    if (typing.active && !silently && isMine(typing.dialog)) {
      sendRaw({ action: "typing", dialog: typing.dialog, typing: false });
    }
    typing.active = false;
    typing.dialog = null;
    typing.lastSent = 0;
  }

  // ------------------------------------------------------------------ the composer

  function autosize() {
    var input = $("composer-input");
    input.style.height = "auto";
    input.style.height = Math.min(input.scrollHeight, 200) + "px";
  }

  function renderCount() {
    var length = $("composer-input").value.length;
    var node = $("composer-count");
    node.textContent = length > MESSAGE_MAX - 500 ? length + " / " + MESSAGE_MAX : "";
    node.classList.toggle("is-over", length > MESSAGE_MAX);
  }

  function saveDraft() {
    if (S.open && S.open.kind === "mine") {
      var value = $("composer-input").value;
      if (value) S.drafts[S.open.id] = value; else delete S.drafts[S.open.id];
    }
  }

  // ------------------------------------------------------------------ canned answers

  var canned = { open: false, slash: false, items: [], active: 0, seq: 0, timer: null };

  function openCanned(slashQuery) {
    if (!S.open || S.open.kind !== "mine") return;
    var box = $("canned");
    var search = $("canned-search");
    canned.slash = slashQuery !== undefined;
    if (!canned.open) {
      canned.open = true;
      box.hidden = false;
      $("canned-button").setAttribute("aria-expanded", "true");
      if (!canned.slash) search.value = "";
    }
    if (canned.slash) search.value = slashQuery;
    else search.focus();
    queryCanned(search.value, true);
  }

  function closeCanned(focusComposer) {
    if (!canned.open) return;
    canned.open = false;
    canned.slash = false;
    clearTimeout(canned.timer);
    $("canned").hidden = true;
    $("canned-button").setAttribute("aria-expanded", "false");
    if (focusComposer) $("composer-input").focus();
  }

  function queryCanned(q, now) {
    clearTimeout(canned.timer);
    var run = function () {
      var seq = ++canned.seq;
      var open = S.open;
      if (!open) return;
      if (!canned.items.length) showCannedMessage(_("Loading…"));
      request({ action: "canned", dialog: open.id, q: q }).then(function (reply) {
        if (seq !== canned.seq) return;
        canned.items = reply.answers || [];
        canned.active = 0;
        renderCanned(q);
      }, function (error) {
        if (seq !== canned.seq) return;
        showCannedMessage(_("The answers could not be loaded."));
        showError(error);
      });
    };
    if (now) run(); else canned.timer = setTimeout(run, 180);
  }

  function showCannedMessage(text) {
    var list = $("canned-list");
    clear(list);
    list.appendChild(el("li", { class: "canned-empty" }, [text]));
  }

  function highlight(text, q) {
    var fragment = document.createDocumentFragment();
    var needle = (q || "").trim().toLowerCase();
    var source = String(text || "");
    if (!needle) { fragment.appendChild(document.createTextNode(source)); return fragment; }
    var lower = source.toLowerCase();
    var from = 0;
    var index;
    while ((index = lower.indexOf(needle, from)) >= 0) {
      fragment.appendChild(document.createTextNode(source.slice(from, index)));
      fragment.appendChild(el("mark", null, [source.slice(index, index + needle.length)]));
      from = index + needle.length;
    }
    fragment.appendChild(document.createTextNode(source.slice(from)));
    return fragment;
  }

  function renderCanned(q) {
    var list = $("canned-list");
    clear(list);
    if (!canned.items.length) {
      showCannedMessage(q ? fmt(_("No predefined answer contains “%(words)s”."), { words: q }) : _("This bot has no predefined answer in this language."));
      return;
    }
    canned.items.forEach(function (answer, index) {
      var label = el("span", { class: "canned-label" });
      label.appendChild(highlight(answer.label, q));
      if (answer.theme) {
        // The predefined answer's theme (its tag), as the product shows it.
        var theme = el("span", { class: "canned-theme", "data-testid": "canned-theme" });
        theme.appendChild(highlight(answer.theme, q));
        label.appendChild(theme);
      }
      var text = el("span", { class: "canned-text" });
      text.appendChild(highlight(answer.text, q));
      var button = el("button", {
        type: "button",
        class: "canned-item" + (index === canned.active ? " is-active" : ""),
        role: "option",
        "aria-selected": index === canned.active ? "true" : "false",
        "data-testid": "canned-item",
        "data-canned-id": String(answer.id),
        onclick: function () { insertCanned(answer); },
        onmousemove: function () { if (canned.active !== index) { canned.active = index; markActive(); } }
      }, [label, text]);
      list.appendChild(el("li", { role: "presentation" }, [button]));
    });
  }

  function markActive() {
    $("canned-list").querySelectorAll(".canned-item").forEach(function (node, index) {
      node.classList.toggle("is-active", index === canned.active);
      node.setAttribute("aria-selected", index === canned.active ? "true" : "false");
      if (index === canned.active) node.scrollIntoView({ block: "nearest" });
    });
  }

  function moveCanned(step) {
    if (!canned.items.length) return;
    canned.active = (canned.active + step + canned.items.length) % canned.items.length;
    markActive();
  }

  function insertCanned(answer) {
    var input = $("composer-input");
    var text = answer.text || "";
    if (canned.slash && /^\/\S*$/.test(input.value)) {
      input.value = text;
      input.setSelectionRange(text.length, text.length);
    } else {
      putAtCaret(input, text);
    }
    closeCanned(true);
    autosize();
    renderCount();
    saveDraft();
    noteTyping();
  }

  function putAtCaret(input, text) {
    var start = input.selectionStart || 0;
    var end = input.selectionEnd || 0;
    var before = input.value.slice(0, start);
    var after = input.value.slice(end);
    var glue = before && !/\s$/.test(before) ? " " : "";
    input.value = before + glue + text + after;
    var caret = (before + glue + text).length;
    input.setSelectionRange(caret, caret);
  }

  /** A text a plugin gives the operator (a suggested answer): in the composer, to edit before sending. */
  function insertText(text) {
    if (!S.open || S.open.kind !== "mine") return false;
    var input = $("composer-input");
    if (!input.value.trim()) input.value = "";
    putAtCaret(input, String(text || "").slice(0, MESSAGE_MAX));
    input.focus();
    autosize();
    renderCount();
    saveDraft();
    noteTyping();
    return true;
  }

  // ------------------------------------------------------------------ toasts

  function toast(kind, title, text, options) {
    options = options || {};
    var box = $("toasts");
    if (kind === "error" && !options.testid) {
      box.querySelectorAll('[data-testid="error-toast"]').forEach(function (old) { old.remove(); });
    }
    var node = el("div", {
      class: "toast toast-" + kind,
      role: kind === "error" ? "alert" : "status",
      "data-testid": options.testid || (kind === "error" ? "error-toast" : "info-toast")
    }, [
      icon(kind === "error" ? "alert" : kind === "success" ? "check" : "info"),
      el("div", { class: "toast-body" }, [
        el("div", { class: "toast-title" }, [title]),
        text ? el("div", { class: "toast-text" }, [text]) : null
      ]),
      options.action ? el("button", {
        type: "button", class: "btn btn-secondary btn-sm",
        onclick: function () { node.remove(); options.onAction(); }
      }, [options.action]) : null,
      el("button", { type: "button", class: "icon-btn", title: _("Close"), onclick: function () { node.remove(); } }, [
        icon("close"), el("span", { class: "sr-only" }, [_("Close")])
      ])
    ]);
    box.appendChild(node);
    while (box.children.length > 3) box.removeChild(box.firstChild);
    var life = kind === "error" ? 9000 : 5000;
    var timer = setTimeout(function () { node.remove(); }, life);
    node.addEventListener("mouseenter", function () { clearTimeout(timer); });
    node.addEventListener("mouseleave", function () { timer = setTimeout(function () { node.remove(); }, 2500); });
  }

  // ------------------------------------------------------------------ the connection banner

  function showBanner(kind, text) {
    var banner = $("connection-banner");
    banner.hidden = false;
    banner.classList.toggle("is-fatal", kind === "fatal");
    banner.classList.toggle("is-degraded", kind === "degraded");
    banner.dataset.kind = kind;
    $("banner-text").textContent = text;
    // Degraded: the socket is open and the server retries by itself; nothing for the operator to do.
    $("banner-retry").hidden = kind !== "retry";
    $("banner-login").hidden = kind !== "fatal";
    document.body.classList.add("has-banner");
  }

  function hideBanner() {
    $("connection-banner").hidden = true;
    document.body.classList.remove("has-banner");
  }

  // ------------------------------------------------------------------ sound (Web Audio, no file)

  var audio = null;
  var muted = false;
  try { muted = localStorage.getItem("livechat.muted") === "1"; } catch (error) { /* private mode */ }

  function unlockAudio() {
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    if (!audio) { try { audio = new Ctx(); } catch (error) { audio = null; return; } }
    if (audio.state === "suspended") audio.resume();
  }

  function chime() {
    if (muted) return;
    unlockAudio();
    if (!audio) return;
    var start = audio.currentTime + 0.02;
    [[659.25, 0], [987.77, 0.14]].forEach(function (note) {
      var osc = audio.createOscillator();
      var gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = note[0];
      gain.gain.setValueAtTime(0.0001, start + note[1]);
      gain.gain.exponentialRampToValueAtTime(0.22, start + note[1] + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + note[1] + 0.45);
      osc.connect(gain);
      gain.connect(audio.destination);
      osc.start(start + note[1]);
      osc.stop(start + note[1] + 0.5);
    });
  }

  function renderSound() {
    var button = $("sound-toggle");
    button.setAttribute("aria-pressed", muted ? "false" : "true");
    button.title = muted ? _("Sound of new conversations: off") : _("Sound of new conversations: on");
    button.querySelector("use").setAttribute("href", muted ? "#i-bell-off" : "#i-bell");
  }

  // ------------------------------------------------------------------ wiring

  function wire() {
    var select = $("status-select");
    select.disabled = true;
    select.addEventListener("change", function () { setStatus(select.value); });
    $("shown-name-form").addEventListener("submit", saveShownName);
    $("shown-name").addEventListener("change", function () { saveShownName(); });
    $("empty-available").addEventListener("click", function () { select.value = "available"; setStatus("available"); });

    document.querySelectorAll(".section-toggle").forEach(function (button) {
      button.addEventListener("click", function () {
        var open = button.getAttribute("aria-expanded") !== "true";
        button.setAttribute("aria-expanded", open ? "true" : "false");
        button.closest(".section").classList.toggle("is-collapsed", !open);
      });
    });

    var input = $("composer-input");
    $("composer").addEventListener("submit", function (event) { event.preventDefault(); sendMessage(); });
    input.addEventListener("keydown", function (event) {
      if (canned.open && canned.slash) {
        if (event.key === "ArrowDown") { event.preventDefault(); moveCanned(1); return; }
        if (event.key === "ArrowUp") { event.preventDefault(); moveCanned(-1); return; }
        if ((event.key === "Enter" || event.key === "Tab") && canned.items.length) {
          event.preventDefault();
          insertCanned(canned.items[canned.active]);
          return;
        }
        if (event.key === "Escape") { event.preventDefault(); closeCanned(); return; }
      }
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing && event.keyCode !== 229) {
        event.preventDefault();
        sendMessage();
      }
    });
    input.addEventListener("input", function () {
      autosize();
      renderCount();
      saveDraft();
      var slash = /^\/(\S*)$/.exec(input.value);
      if (slash) openCanned(slash[1]);
      else if (canned.open && canned.slash) closeCanned();
      noteTyping();
    });
    input.addEventListener("blur", function () { if (typing.active) { clearTimeout(typing.pause); typing.pause = setTimeout(stopTyping, 1500); } });

    $("canned-button").addEventListener("click", function () {
      if (canned.open && !canned.slash) closeCanned(true);
      else { closeCanned(); openCanned(); }
    });
    $("canned-close").addEventListener("click", function () { closeCanned(true); });
    var search = $("canned-search");
    search.addEventListener("input", function () { queryCanned(search.value); });
    search.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown") { event.preventDefault(); moveCanned(1); }
      else if (event.key === "ArrowUp") { event.preventDefault(); moveCanned(-1); }
      else if (event.key === "Enter") {
        event.preventDefault();
        if (canned.items.length) insertCanned(canned.items[canned.active]);
      } else if (event.key === "Escape") { event.preventDefault(); closeCanned(true); }
    });
    document.addEventListener("mousedown", function (event) {
      if (!canned.open) return;
      if ($("canned").contains(event.target) || $("canned-button").contains(event.target) || event.target === input) return;
      closeCanned();
    });

    $("transfer-operator").addEventListener("change", function () {
      if ($("transfer-operator").value) $("transfer-competency").value = "";
      renderTransferButton();
    });
    $("transfer-competency").addEventListener("change", function () {
      if ($("transfer-competency").value) $("transfer-operator").value = "";
      renderTransferButton();
    });
    $("transfer-button").addEventListener("click", transfer);
    $("details-toggle").addEventListener("click", function () { showDetails(!document.body.classList.contains("show-details")); });
    $("details-close").addEventListener("click", function () { showDetails(false); $("details-toggle").focus(); });
    $("end-button").addEventListener("click", askEnd);
    $("back-to-list").addEventListener("click", closeConversation);

    var box = $("transcript");
    box.addEventListener("scroll", function () { if (nearBottom(box)) $("jump-bottom").hidden = true; });
    $("jump-bottom").addEventListener("click", scrollToBottom);

    $("banner-retry").addEventListener("click", reconnectNow);
    window.addEventListener("online", reconnectNow);

    $("sound-toggle").addEventListener("click", function () {
      muted = !muted;
      try { localStorage.setItem("livechat.muted", muted ? "1" : "0"); } catch (error) { /* private mode */ }
      renderSound();
      if (!muted) chime();
    });
    renderSound();
    ["pointerdown", "keydown"].forEach(function (name) {
      document.addEventListener(name, unlockAudio, { once: true, capture: true });
    });

    document.addEventListener("visibilitychange", function () {
      if (!document.hidden && S.open && S.unread[S.open.id]) {
        delete S.unread[S.open.id];
        renderLists();
        updateTitle();
      }
    });
    window.addEventListener("focus", function () {
      if (S.open && (S.unread[S.open.id] || S.fresh[S.open.id])) {
        delete S.unread[S.open.id];
        delete S.fresh[S.open.id];
        renderLists();
        updateTitle();
      }
    });

    document.addEventListener("keydown", function (event) {
      // Alt+↑ / Alt+↓: previous / next conversation.
      if (!event.altKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown") || !S.dialogs.length) return;
      event.preventDefault();
      var index = S.open ? S.dialogs.findIndex(function (d) { return d.id === S.open.id; }) : -1;
      var next = index + (event.key === "ArrowDown" ? 1 : -1);
      if (next < 0) next = S.dialogs.length - 1;
      if (next >= S.dialogs.length) next = 0;
      openDialog(S.dialogs[next].id);
    });

    // Waiting times move on their own: refresh them every 15 s (and expire stale typing previews).
    setInterval(function () {
      document.querySelectorAll("[data-since]").forEach(function (node) {
        var value = node.dataset.since;
        if (!value) return;
        var text = since(value) || JUST_NOW;
        node.textContent = (node.dataset.prefix || "") + text;
      });
      document.querySelectorAll(".callback-age").forEach(function (node) {
        var row = node.closest("[data-callback-id]");
        var cb = row && S.callbacks.find(function (c) { return String(c.id) === row.dataset.callbackId; });
        if (cb) node.textContent = ago(cb.createdAt);
      });
      var expired = false;
      Object.keys(S.typing).forEach(function (id) {
        if (Date.now() - S.typing[id].at > VISITOR_TYPING_TTL_MS) { delete S.typing[id]; expired = true; }
      });
      if (expired) { renderTyping(); renderLists(); }
    }, 15000);
  }

  function afterQueueChange() {
    if (S.open && S.open.kind === "queue") {
      var card = findQueued(S.open.id);
      if (card) {
        S.open.card = card;
        renderHeader();
        renderComposerMode();
      } else if (!isMine(S.open.id)) {
        toast("info", _("No longer in the queue"), _("This visitor no longer waits: a colleague took them, or they left."));
        closeConversation();
      }
    }
    renderLists();
    renderEmpty();
  }

  window.LivechatConsole = {
    use: function (plugin) {
      plugins.push(plugin);
      if (S.open && typeof plugin.shown === "function") plugin.shown(shownDetail());
    },
    request: request,
    insert: insertText,
    showError: showError,
    // For supervision.js: open one of my dialogs, close the open one, draw answers safely, tell the operator.
    open: function (id) { openDialog(id); },
    close: closeConversation,
    sanitize: sanitize,
    toast: toast,
    isMine: isMine,
    el: el,
    icon: icon,
    clear: clear,
    push: function (message) { var handler = HANDLERS[message.type]; if (handler) handler(message); }
  };

  wire();
  renderAll();
  connect();
})();
