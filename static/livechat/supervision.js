/* The console's wider views and supervision, plugged into console.js (window.LivechatConsole.use):
 *
 * - the Mine / Unassigned / All views of the left column, and the search (by words, visitor and dates);
 * - private notes: the operator's composer writes a reply or a note for staff (never sent to the visitor;
 *   no typing is shown to the visitor while a note is written); notes are drawn apart, marked staff only;
 * - a conversation that is not mine opens in its own pane (#watch): read only, or for a supervisor on a
 *   monitored bot read along as it is written ("watch" pushes), whisper to its operator, join it (write to
 *   the visitor beside the operator) or take it over (it becomes mine).
 * The server checks every action; this page only shows what the server answers.
 */
(function () {
  "use strict";

  var C = window.LivechatConsole;
  if (!C) return;

  // ------------------------------------------------------------------ words and small helpers

  // Words come from Django's JavaScript catalogue (/jsi18n/, djangojs.po) in the page's language.
  var _ = window.gettext || function (text) { return text; };
  var ngettext = window.ngettext || function (one, many, count) { return count === 1 ? one : many; };
  var LANG = document.documentElement.lang || "en";
  var ME = (document.getElementById("app") || { dataset: {} }).dataset.operatorLogin || "";
  var SPECIAL_INPUT = /^#[a-z_]+#$|^#dydumailto:/i;
  var REFRESH_EVERY_MS = 15000;
  var TAKE_OVER_LABEL = ($("watch-takeover") || {}).textContent || "";

  // say(_("With %(operator)s"), {operator: "Ann"}): a translated text with its named placeholders filled.
  function say(text, values) {
    values = values || {};
    return String(text).replace(/%\((\w+)\)s/g, function (whole, name) { return name in values ? String(values[name]) : whole; });
  }

  function $(id) { return document.getElementById(id); }

  // The console's own DOM helpers (one way to build a node, an icon, an empty list).
  var el = C.el, icon = C.icon, clear = C.clear;

  var clockFormat = new Intl.DateTimeFormat(LANG, { hour: "2-digit", minute: "2-digit" });
  var relative = window.Intl && Intl.RelativeTimeFormat ? new Intl.RelativeTimeFormat(LANG, { numeric: "auto", style: "short" }) : null;

  function clock(iso) {
    var t = iso ? Date.parse(iso) : NaN;
    return isNaN(t) ? "" : clockFormat.format(new Date(t));
  }

  function ago(iso) {
    var t = iso ? Date.parse(iso) : NaN;
    if (isNaN(t) || !relative) return clock(iso);
    var seconds = Math.round((t - Date.now()) / 1000);
    if (Math.abs(seconds) < 60) return relative.format(0, "minute");
    if (Math.abs(seconds) < 3600) return relative.format(Math.round(seconds / 60), "minute");
    if (Math.abs(seconds) < 86400) return relative.format(Math.round(seconds / 3600), "hour");
    return relative.format(Math.round(seconds / 86400), "day");
  }

  function visitorName(conversation) {
    var vars = (conversation.visitor && conversation.visitor.variables) || {};
    var keys = ["name", "nom", "fullName", "fullname", "firstName", "firstname", "prenom", "prénom", "email"];
    for (var i = 0; i < keys.length; i++) {
      var value = vars[keys[i]];
      if (typeof value === "string" && value.trim()) return value.trim().slice(0, 60);
    }
    return say(_("Visitor #%(id)s"), { id: conversation.id });
  }

  function initials(name) {
    var parts = String(name || "?").replace(/[^\p{L}\p{N} ]/gu, " ").trim().split(/\s+/);
    return ((parts[0] || "?").charAt(0) + (parts.length > 1 ? parts[parts.length - 1].charAt(0) : "")).toUpperCase();
  }

  function stateTag(conversation) {
    if (conversation.state === "operator") {
      return el("span", { class: "tag " + (conversation.mine ? "tag-turn-me" : "tag-with"), "data-testid": "state-tag" },
        [conversation.mine ? say(_("With you")) : say(_("With %(operator)s"), { operator: conversation.operator })]);
    }
    if (conversation.state === "queued") return el("span", { class: "tag tag-turn-me", "data-testid": "state-tag" }, [say(_("Waiting for an operator"))]);
    return el("span", { class: "tag tag-bot", "data-testid": "state-tag" }, [say(_("With the bot"))]);
  }

  // ------------------------------------------------------------------ the page's model

  var V = {
    supervisor: false,
    view: "mine",
    all: [],
    allLoaded: false,
    results: null,
    reading: null, // {conversation, lines, live, joined, failed}
    watchMode: "note",
    openId: null, // the console's open conversation (its live-chat id)
    modes: {}, // live-chat id → "reply" or "note", for the console's composer
    timers: {}
  };

  function later(name, fn, ms) {
    clearTimeout(V.timers[name]);
    V.timers[name] = setTimeout(fn, ms);
  }

  // ------------------------------------------------------------------ the views (left column)

  var VIEWS = {
    mine: ["dialog-list", "callbacks-list"],
    unassigned: ["queue-list"],
    all: ["all-list"],
    search: ["search-results"]
  };
  var LISTS = ["dialog-list", "callbacks-list", "queue-list", "all-list", "search-results"];

  function showView(view) {
    V.view = view;
    LISTS.forEach(function (id) {
      var section = $(id) && $(id).closest(".section");
      if (section) section.hidden = VIEWS[view].indexOf(id) < 0;
    });
    document.querySelectorAll(".view-tab").forEach(function (tab) {
      tab.setAttribute("aria-selected", tab.dataset.view === view ? "true" : "false");
    });
    $("view-search").setAttribute("aria-pressed", view === "search" ? "true" : "false");
    if (view === "all") loadAll();
    if (view === "search") $("search-text").focus({ preventScroll: true });
    renderCounts();
  }

  function renderCounts() {
    var mine = ($("mine-count") || {}).textContent || "0";
    var queue = ($("queue-count") || {}).textContent || "0";
    $("view-mine-count").textContent = mine;
    $("view-mine-count").classList.toggle("is-hot", !!$("mine-count") && $("mine-count").classList.contains("is-hot"));
    $("view-unassigned-count").textContent = queue;
    $("view-unassigned-count").classList.toggle("is-hot", Number(queue) > 0);
    $("view-all-count").textContent = V.allLoaded ? String(V.all.length) : "–";
  }

  function loadAll() {
    C.request({ action: "all" }).then(function (reply) {
      V.supervisor = !!reply.supervisor;
      V.all = reply.conversations || [];
      V.allLoaded = true;
      renderAll();
    }, function (error) { if (!error.silent) C.showError(error); });
  }

  function renderAll() {
    var list = $("all-list");
    clear(list);
    V.all.forEach(function (conversation) { list.appendChild(item(conversation, "all-item")); });
    $("all-empty").hidden = !V.allLoaded || V.all.length > 0;
    $("all-hint").textContent = V.supervisor ? say(_("Every conversation of your account with an operator or waiting for one and, on monitored bots, those still with the bot: their lines arrive as they are written.")) : say(_("Every conversation of your account with an operator or waiting for one."));
    renderCounts();
  }

  function item(conversation, testid) {
    var name = visitorName(conversation);
    var tags = [stateTag(conversation), el("span", { class: "tag tag-muted" }, [conversation.bot])];
    if (conversation.monitored && V.supervisor) tags.push(el("span", { class: "tag tag-watch" }, [icon("eye"), say(_("Monitored"))]));
    var open = V.reading && V.reading.conversation.id === conversation.id;
    var face = el("span", { class: "avatar", "aria-hidden": "true" }, [initials(name)]);
    return el("li", {
      class: "item" + (open ? " is-open" : ""),
      "data-testid": testid,
      "data-conversation-id": String(conversation.id),
      "data-state": conversation.state
    }, [
      el("button", { type: "button", class: "item-main", onclick: function () { read(conversation); } }, [
        face,
        el("span", { class: "item-name" }, [name]),
        el("span", { class: "item-time", title: clock(conversation.lastActivity) }, [ago(conversation.lastActivity)]),
        el("span", { class: "item-preview" }, [conversation.excerpt || conversation.preview || ""]),
        el("span", { class: "item-side" }),
        el("span", { class: "item-tags" }, tags)
      ])
    ]);
  }

  function search(event) {
    event.preventDefault();
    var fields = { action: "search" };
    [["text", "search-text"], ["visitor", "search-visitor"], ["from", "search-from"], ["to", "search-to"]].forEach(function (pair) {
      var value = $(pair[1]).value.trim();
      if (value) fields[pair[0]] = value;
    });
    $("search-hint").textContent = say(_("Searching…"));
    C.request(fields).then(function (reply) {
      V.results = reply.results || [];
      var list = $("search-results");
      clear(list);
      V.results.forEach(function (conversation) { list.appendChild(item(conversation, "search-result")); });
      $("search-hint").textContent = !V.results.length ? say(_("No conversation found."))
        : reply.more ? say(_("The latest %(count)s conversations found: narrow the search to see others."), { count: V.results.length }) : say(ngettext("%(count)s conversation found.", "%(count)s conversations found.", V.results.length), { count: V.results.length });
    }, function (error) {
      $("search-hint").textContent = "";
      C.showError(error);
    });
  }

  // ------------------------------------------------------------------ reading a conversation that is not mine

  function read(conversation) {
    if (conversation.mine && conversation.request && C.isMine(conversation.request)) {
      leaveWatch();
      C.open(conversation.request);
      return;
    }
    C.close(); // the console's own conversation, if one was open
    V.reading = { conversation: conversation, lines: null, live: false, joined: false, failed: false };
    V.watchMode = "note";
    showWatch();
    renderWatch(true);
    reload();
  }

  function reload() {
    var reading = V.reading;
    if (!reading) return;
    C.request({ action: "read", conversation: reading.conversation.id }).then(function (reply) {
      if (V.reading !== reading) return;
      reading.conversation = reply.conversation;
      reading.lines = reply.messages || [];
      reading.live = !!reply.live;
      reading.joined = !!reply.joined;
      renderWatch(true);
    }, function (error) {
      if (V.reading === reading) { reading.failed = true; renderWatch(); }
      if (!error.silent) C.showError(error);
    });
  }

  function showWatch() {
    document.body.classList.add("is-watching", "is-reading");
    $("empty-state").hidden = true;
    $("conversation").hidden = true;
    $("watch").hidden = false;
    markOpen();
  }

  function leaveWatch() {
    if (!V.reading && $("watch").hidden) return;
    V.reading = null;
    $("watch").hidden = true;
    document.body.classList.remove("is-watching");
    if ($("conversation").hidden) {
      $("empty-state").hidden = false;
      document.body.classList.remove("is-reading");
    }
    markOpen();
  }

  function markOpen() {
    document.querySelectorAll("[data-conversation-id]").forEach(function (node) {
      node.classList.toggle("is-open", !!V.reading && node.dataset.conversationId === String(V.reading.conversation.id));
    });
  }

  function renderWatch(scrollToEnd) {
    var reading = V.reading;
    if (!reading) return;
    var conversation = reading.conversation;
    var name = visitorName(conversation);
    $("watch-avatar").textContent = initials(name);
    $("watch-name").textContent = name;
    $("watch-sub").textContent = [conversation.bot, conversation.space, (conversation.language || "").toUpperCase()].filter(Boolean).join(" · ");
    var badges = $("watch-badges");
    clear(badges);
    badges.appendChild(stateTag(conversation));
    badges.appendChild(el("span", { class: "tag " + (reading.live ? "tag-watch" : "tag-muted"), "data-testid": "watch-mode" },
      reading.live ? [icon("eye"), say(_("Reading along"))] : [say(_("Read only"))]));
    if (reading.joined) badges.appendChild(el("span", { class: "tag tag-new", "data-testid": "watch-joined" }, [say(_("Joined"))]));
    var print = $("watch-print");
    print.hidden = false;
    print.href = "/admin/dialogs/dialog/" + encodeURIComponent(conversation.id) + "/print/";
    renderLines(scrollToEnd);
    renderActions();
  }

  function renderLines(scrollToEnd) {
    var box = $("watch-transcript");
    var stick = scrollToEnd || box.scrollHeight - box.scrollTop - box.clientHeight < 80;
    clear(box);
    var reading = V.reading;
    if (!reading.lines) {
      box.appendChild(el("div", { class: "notice-row" }, [el("div", { class: "notice notice-local" }, [reading.failed ? "—" : say(_("Loading…"))])]));
      return;
    }
    reading.lines.forEach(function (line) { drawLine(box, line); });
    if (stick) box.scrollTop = box.scrollHeight;
  }

  function drawLine(box, line) {
    var time = clock(line.at);
    if (line.from === "note") {
      box.appendChild(noteNode(line, time));
      return;
    }
    var said = line.user && String(line.user).trim();
    if (line.file) {
      box.appendChild(message("visitor", say(_("Visitor")), el("div", { class: "bubble bubble-visitor" }, ["📎 " + String(line.file.name || "")]), time, line));
    } else if (said && !SPECIAL_INPUT.test(said) && (line.from === "visitor" || line.from === "bot" || line.from === "notice")) {
      box.appendChild(message("visitor", say(_("Visitor")), el("div", { class: "bubble bubble-visitor" }, [String(line.user)]), time, line));
    }
    if ((line.from === "operator" || line.from === "bot") && line.text) {
      var content = el("div", { class: "bubble bubble-" + line.from });
      content.appendChild(C.sanitize(line.text));
      var who = line.from === "bot" ? ((V.reading && V.reading.conversation.bot) || say(_("Bot")))
        : (line.operatorLogin && line.operatorLogin === ME ? say(_("You")) : line.operator || "");
      box.appendChild(message(line.from, who, content, time, line));
    }
    if (line.from === "notice" && line.text) {
      var notice = el("div", { class: "notice", "data-testid": "watch-line", "data-from": "notice" });
      notice.appendChild(C.sanitize(line.text));
      box.appendChild(el("div", { class: "notice-row" }, [notice, el("div", { class: "notice-time" }, [time])]));
    }
  }

  function message(from, who, content, time, line) {
    content.setAttribute("data-testid", "watch-line");
    content.setAttribute("data-from", from);
    content.setAttribute("data-line-id", String(line.id));
    var out = from === "operator" || from === "bot";
    return el("div", { class: "msg " + (out ? "out" : "in"), "data-author": from }, [
      el("div", { class: "msg-author" + (from === "bot" ? " author-bot" : "") }, [from === "bot" ? icon("bot") : null, who]),
      content,
      el("div", { class: "msg-meta" }, [time ? el("time", { datetime: line.at || "" }, [time]) : null])
    ]);
  }

  /** A staff note (a private note, a whisper, a supervisor joining): apart, marked, plain text. */
  function noteNode(line, time) {
    var title = line.kind === "whisper" ? say(_("Whisper to %(operator)s"), { operator: line.to || "" })
      : line.kind === "joined" ? say(_("%(name)s joined the conversation (supervisor)"), { name: line.operator || "" }) : say(_("Private note"));
    var author = line.kind === "joined" ? "" : (line.operatorLogin && line.operatorLogin === ME ? say(_("You")) : line.operator || "");
    return el("div", { class: "note-row" }, [
      el("div", { class: "note note-" + (line.kind || "note"), "data-testid": "line", "data-from": "note", "data-kind": line.kind || "note", "data-line-id": String(line.id) }, [
        el("div", { class: "note-head" }, [
          icon("lock"),
          el("strong", null, [title]),
          author ? el("span", null, ["· " + author]) : null,
          time ? el("span", { class: "note-time" }, ["· " + time]) : null,
          el("span", { class: "note-flag" }, [say(_("Staff only"))])
        ]),
        line.text ? el("div", { class: "note-text", "data-testid": "note-text" }, [String(line.text)]) : null
      ])
    ]);
  }

  function renderActions() {
    var reading = V.reading;
    var conversation = reading.conversation;
    var supervising = V.supervisor && conversation.monitored;
    var withOther = conversation.state === "operator" && !conversation.mine;
    var text;
    if (reading.joined) text = say(_("You joined: you write to the visitor beside %(operator)s."), { operator: conversation.operator });
    else if (conversation.state === "queued") text = say(_("This visitor waits for an operator."));
    else if (conversation.state === "bot") text = say(_("This visitor talks with the bot."));
    else text = "";
    text = [reading.live ? say(_("Reading along: new lines appear as they are written.")) : say(_("You see this conversation as it was when you opened it.")), text].filter(Boolean).join(" ");
    $("watch-state").textContent = text;
    $("watch-join").hidden = !(supervising && withOther && !reading.joined);
    var takeover = $("watch-takeover");
    var plainTake = !supervising && conversation.state === "queued" && conversation.request;
    takeover.hidden = !((supervising && !conversation.mine) || plainTake);
    takeover.textContent = plainTake ? say(_("Take")) : TAKE_OVER_LABEL;
    // Notes: a supervisor on a monitored bot's conversation (a whisper when an operator holds it).
    var composer = $("watch-composer");
    composer.hidden = !supervising;
    var replyButton = composer.querySelector('[data-mode="reply"]');
    replyButton.hidden = !reading.joined;
    if (!reading.joined && V.watchMode === "reply") V.watchMode = "note";
    composer.querySelectorAll(".mode-btn").forEach(function (button) {
      button.setAttribute("aria-checked", button.dataset.mode === V.watchMode ? "true" : "false");
    });
    composer.classList.toggle("is-note", V.watchMode === "note");
    $("watch-note-label").textContent = withOther ? say(_("Whisper to %(operator)s"), { operator: conversation.operator }) : say(_("Private note"));
    $("watch-help").textContent = V.watchMode === "reply" ? say(_("Sent to the visitor, under your name."))
      : withOther ? say(_("Never sent to the visitor: %(operator)s sees it at once."), { operator: conversation.operator }) : say(_("Never sent to the visitor: kept for staff."));
    $("watch-input").placeholder = V.watchMode === "note" ? say(_("Private note for staff: never sent to the visitor…")) : "";
  }

  function addLine(line) {
    var reading = V.reading;
    if (!reading || !reading.lines || !line) return;
    if (reading.lines.some(function (known) { return known.id === line.id; })) return;
    reading.lines.push(line);
    var box = $("watch-transcript");
    var stick = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
    drawLine(box, line);
    if (stick) box.scrollTop = box.scrollHeight;
  }

  function writeInWatch(event) {
    event.preventDefault();
    var reading = V.reading;
    var input = $("watch-input");
    var text = input.value.trim();
    if (!reading || !text) return;
    var conversation = reading.conversation;
    var action = V.watchMode === "reply"
      ? { action: "send", dialog: conversation.request, text: text }
      : { action: "note", conversation: conversation.id, text: text };
    input.value = "";
    C.request(action).then(function (reply) {
      addLine(reply.note || reply.message);
    }, function (error) {
      if (!input.value) input.value = text; // nothing is lost
      C.showError(error);
    });
  }

  function join() {
    var reading = V.reading;
    if (!reading) return;
    C.request({ action: "join", conversation: reading.conversation.id }).then(function (reply) {
      if (V.reading !== reading) return;
      reading.joined = true;
      reading.conversation = Object.assign({}, reading.conversation, reply.conversation);
      V.watchMode = "reply";
      C.toast("success", say(_("You joined the conversation")), "");
      renderWatch();
      $("watch-input").focus();
    }, C.showError);
  }

  function takeOver() {
    var reading = V.reading;
    if (!reading) return;
    var conversation = reading.conversation;
    var plainTake = !(V.supervisor && conversation.monitored);
    var action = plainTake ? { action: "take", dialog: conversation.request } : { action: "takeover", conversation: conversation.id };
    C.request(action).then(function (reply) {
      var card = reply.dialog;
      if (!card) return;
      // Mine now: the console's own view of it, with its composer and actions.
      C.push({ type: "dialog", dialog: card, sound: false });
      leaveWatch();
      showView("mine");
      C.open(card.id);
      C.toast("success", say(_("The conversation is yours")), visitorName(conversation));
    }, C.showError);
  }

  // ------------------------------------------------------------------ what the server sends

  function received(message) {
    switch (message.type) {
      case "state":
        V.supervisor = !!message.supervisor;
        later("all", loadAll, 50);
        if (V.reading) reload();
        break;
      case "restored":
        later("all", loadAll, 50);
        break;
      case "watch":
        watched(message);
        break;
      case "message":
        whispered(message);
        break;
      case "queue": case "dialog": case "removed": case "ended": case "operator":
        // The account's dialogs moved (an operator's load changes with each of them): the All view follows.
        later("all", loadAll, 500);
        break;
      default:
        break;
    }
    renderCounts();
  }

  function watched(message) {
    var summary = message.conversation || {};
    var known = V.all.find(function (c) { return c.id === summary.id; });
    if (!known || known.state !== summary.state) later("all", loadAll, 600);
    else {
      known.lastActivity = summary.lastActivity;
      var line = message.message;
      if (line && line.from !== "note") known.preview = line.from === "visitor" ? line.user : (line.user && !SPECIAL_INPUT.test(line.user) ? line.user : known.preview);
      if (V.view === "all") renderAll();
    }
    var reading = V.reading;
    if (reading && reading.conversation.id === summary.id) {
      if (reading.conversation.state !== summary.state) later("read", reload, 300);
      else addLine(message.message);
    }
  }

  function whispered(message) {
    var line = message.message;
    if (!line || line.from !== "note" || line.kind !== "whisper" || line.operatorLogin === ME) return;
    C.toast("info", say(_("%(name)s whispers to you"), { name: line.operator || "" }), String(line.text || "").slice(0, 200), { testid: "whisper-toast" });
  }

  // ------------------------------------------------------------------ my composer: reply or private note

  function modeOf(id) { return V.modes[id] || "reply"; }

  function renderComposerMode() {
    var mode = V.openId === null ? "reply" : modeOf(V.openId);
    document.querySelectorAll("#composer-mode .mode-btn").forEach(function (button) {
      button.setAttribute("aria-checked", button.dataset.mode === mode ? "true" : "false");
    });
    var composer = $("composer");
    var input = $("composer-input");
    if (input.dataset.replyPlaceholder === undefined) input.dataset.replyPlaceholder = input.placeholder;
    composer.classList.toggle("is-note", mode === "note");
    input.placeholder = mode === "note" ? say(_("Private note for staff: never sent to the visitor…")) : input.dataset.replyPlaceholder;
  }

  C.use({
    shown: function (detail) {
      V.openId = detail ? detail.id : null;
      if (detail) leaveWatch(); // the console opened one of my conversations
      else if (V.reading) document.body.classList.add("is-reading"); // still reading one that is not mine
      renderComposerMode();
    },
    sending: function (detail) {
      if (modeOf(detail.dialog) !== "note") return;
      detail.handled = true;
      C.request({ action: "note", dialog: detail.dialog, text: detail.text }).then(function (reply) {
        if (reply.note) C.push({ type: "message", dialog: detail.dialog, message: reply.note });
        C.toast("success", say(_("Note kept")), "");
      }, function (error) {
        C.insert(detail.text); // back in the composer: nothing is lost
        C.showError(error);
      });
    },
    typing: function (detail) {
      if (modeOf(detail.dialog) === "note") detail.quiet = true;
    },
    note: function (drawn) {
      drawn.node = noteNode(drawn.line, drawn.time);
    },
    received: received
  });

  // ------------------------------------------------------------------ wiring

  document.querySelectorAll(".view-tab, #view-search").forEach(function (tab) {
    tab.addEventListener("click", function () {
      showView(tab.dataset.view === "search" && V.view === "search" ? "mine" : tab.dataset.view);
    });
  });
  document.querySelectorAll("#composer-mode .mode-btn").forEach(function (button) {
    button.addEventListener("click", function () {
      if (V.openId === null) return;
      V.modes[V.openId] = button.dataset.mode;
      renderComposerMode();
      $("composer-input").focus();
    });
  });
  $("watch-composer").querySelectorAll(".mode-btn").forEach(function (button) {
    button.addEventListener("click", function () {
      V.watchMode = button.dataset.mode;
      renderActions();
      $("watch-input").focus();
    });
  });
  $("search-form").addEventListener("submit", search);
  $("watch-composer").addEventListener("submit", writeInWatch);
  $("watch-input").addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) writeInWatch(event);
  });
  $("watch-join").addEventListener("click", join);
  $("watch-takeover").addEventListener("click", takeOver);
  $("watch-close").addEventListener("click", leaveWatch);
  $("watch-back").addEventListener("click", leaveWatch);
  // Plain operators hear of others' conversations by no push: the All view refreshes itself while shown.
  setInterval(function () { if (V.view === "all" && !document.hidden) loadAll(); }, REFRESH_EVERY_MS);

  showView("mine");
  renderComposerMode();
})();
