/* Answers suggested to the operator (livechat/suggestions.py): for the visitor's last message of the open
 * conversation, the bot's best knowledge answers, above the composer. One click puts an answer in the reply,
 * to edit before sending; the message then says which suggestion it came from (the server records it, and
 * whether it was edited). Plugs into console.js through window.LivechatConsole; no build step.
 */
(function () {
  "use strict";

  var api = window.LivechatConsole;
  var box = document.getElementById("suggestions");
  if (!api || !box) return;

  var list = document.getElementById("suggestions-list");
  var forText = document.getElementById("suggestions-for");
  var toggle = document.getElementById("suggestions-toggle");
  var composer = document.getElementById("composer-input");
  // Words from Django's JavaScript catalogue (/jsi18n/, djangojs.po), in the page's language.
  var _ = window.gettext || function (text) { return text; };
  var words = {
    insert: _("Insert in my reply, to edit before sending"),
    score: _("How close the message is to this answer"),
    used: _("Suggested answer"),
    edited: _("Suggested answer, edited"),
    show: _("Show the suggested answers"),
    hide: _("Hide the suggested answers")
  };
  var percentFormat = new Intl.NumberFormat(document.documentElement.lang || "en", { style: "percent" });
  var HIDDEN_KEY = "livechat.suggestions.hidden";

  var shown = null; // {id, kind, lastVisitorLine} of the open conversation
  var asked = ""; // the dialog and visitor line the suggestions on screen (or on their way) are for
  var seq = 0;
  var current = null; // the server's last answer: {dialog, for, question, suggestions}
  var used = {}; // dialog id → item id of the suggestion put in its reply (until sent or the reply is emptied)
  var collapsed = false;
  try { collapsed = localStorage.getItem(HIDDEN_KEY) === "1"; } catch (error) { /* private mode */ }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "onclick") node.addEventListener("click", attrs[key]);
      else if (key === "class") node.className = attrs[key];
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) {
      if (child !== null && child !== undefined) node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  /** Ask for the open conversation's suggestions when its visitor's last line changed (or it became mine). */
  function refresh(force) {
    if (!shown || shown.kind !== "mine") { hide(); return; }
    var key = shown.id + ":" + (shown.lastVisitorLine || "");
    if (!force && key === asked) return;
    asked = key;
    var mine = ++seq;
    var dialog = shown.id;
    api.request({ action: "suggest", dialog: dialog }).then(function (reply) {
      if (mine !== seq || !shown || shown.id !== dialog) return;
      current = reply;
      render();
    }, function () {
      // No suggestions is no loss: the operator writes as usual (errors of the operator's own actions are shown).
      if (mine === seq) hide();
    });
  }

  function hide() {
    current = null;
    box.hidden = true;
  }

  function render() {
    var found = (current && current.suggestions) || [];
    if (!found.length) { hide(); return; }
    forText.textContent = current.question ? _("“%(question)s”").replace("%(question)s", current.question) : "";
    forText.title = current.question || "";
    while (list.firstChild) list.removeChild(list.firstChild);
    found.forEach(function (suggestion) {
      var card = el("button", {
        type: "button",
        class: "suggestion" + (used[current.dialog] === suggestion.item ? " is-used" : ""),
        title: words.insert,
        "data-testid": "suggestion",
        "data-item": String(suggestion.item),
        onclick: function () { insert(suggestion); }
      }, [
        el("span", { class: "suggestion-top" }, [
          el("span", { class: "suggestion-label" }, [suggestion.label || ""]),
          el("span", { class: "suggestion-score", title: words.score }, [percentFormat.format(Math.round((suggestion.score || 0) * 100) / 100)])
        ]),
        el("span", { class: "suggestion-text" }, [suggestion.text || ""])
      ]);
      list.appendChild(el("li", {}, [card]));
    });
    box.hidden = false;
    renderCollapsed();
  }

  function renderCollapsed() {
    box.classList.toggle("is-collapsed", collapsed);
    toggle.setAttribute("aria-expanded", collapsed ? "false" : "true");
    var label = collapsed ? words.show : words.hide;
    toggle.title = label;
    document.getElementById("suggestions-toggle-label").textContent = label;
  }

  function insert(suggestion) {
    if (!current || !api.insert(suggestion.text)) return;
    used[current.dialog] = suggestion.item;
    render();
  }

  toggle.addEventListener("click", function () {
    collapsed = !collapsed;
    try { localStorage.setItem(HIDDEN_KEY, collapsed ? "1" : "0"); } catch (error) { /* private mode */ }
    renderCollapsed();
  });

  // An emptied reply is not the suggestion any more.
  composer.addEventListener("input", function () {
    if (shown && !composer.value.trim() && used[shown.id] !== undefined) {
      delete used[shown.id];
      if (current) render();
    }
  });

  api.use({
    shown: function (detail) {
      var switched = !shown || !detail || shown.id !== detail.id;
      shown = detail;
      if (switched) hide();
      refresh(false);
    },
    message: function (detail) {
      // A new line where the visitor wrote, in the open conversation: the suggestions follow it.
      if (!detail.open || !shown || shown.id !== detail.dialog || !(detail.line.user || "").trim()) return;
      shown.lastVisitorLine = detail.line.id;
      refresh(false);
    },
    sending: function (detail) {
      if (used[detail.dialog] === undefined) return;
      detail.extra.suggestion = used[detail.dialog];
      delete used[detail.dialog];
      if (shown && shown.id === detail.dialog) hide(); // answered: the next visitor message brings new ones
    },
    line: function (detail) {
      // An operator's message that came from a suggestion says so, for the staff reading the transcript.
      var from = detail.line.suggestion;
      if (detail.from !== "operator" || !from) return;
      var text = from.edited ? words.edited : words.used;
      detail.meta.appendChild(el("span", { class: "from-suggestion", "data-testid": "from-suggestion", title: from.label || "" }, [
        text + (from.label ? " · " + from.label : "")
      ]));
    }
  });
})();
