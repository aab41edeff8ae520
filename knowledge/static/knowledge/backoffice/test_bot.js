// The "test the bot" box: each question goes to the bot in qualification mode (the admin endpoint runs
// the chat's talk pipeline) and the answer is shown with why: outcome, score, matched formulation and the
// runner-up items. The answer HTML comes sanitised by the server; everything else is set as text.
(function () {
  "use strict";
  const box = document.getElementById("test-bot");
  if (!box) return;
  const form = box.querySelector("[data-testid=test-bot-form]");
  const log = box.querySelector("[data-testid=test-bot-log]");
  const input = form.querySelector("[name=userInput]");
  const strings = {};
  box.querySelectorAll("#test-bot-strings span").forEach((s) => (strings[s.dataset.k] = s.textContent));
  // Template contents are not in the document: read them from the template's fragment.
  const template = box.querySelector("#test-bot-strings");
  if (template && template.content) {
    template.content.querySelectorAll("span").forEach((s) => (strings[s.dataset.k] = s.textContent));
  }
  const BADGE = {
    direct: "bg-green-100 text-green-700 dark:bg-green-500/20 dark:text-green-400",
    reword: "bg-blue-100 text-blue-700 dark:bg-blue-500/20 dark:text-blue-400",
    misunderstood: "bg-orange-100 text-orange-700 dark:bg-orange-500/20 dark:text-orange-400",
    other: "bg-base-100 text-base-700 dark:bg-base-500/20 dark:text-base-200",
  };
  let contextId = "";

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function itemLink(item) {
    const link = el("a", "text-primary-600 underline", item.label);
    link.href = item.url;
    link.dataset.itemId = item.id;
    return link;
  }

  function bubble(text, mine) {
    const row = el("div", mine ? "flex flex-row" : "flex flex-row");
    const inner = el(
      "div",
      mine
        ? "ml-auto bg-primary-600 text-white rounded-default px-3 py-2 text-sm"
        : "bg-base-100 rounded-default px-3 py-2 text-sm dark:bg-base-800"
    );
    inner.style.maxWidth = "75%";
    if (mine) inner.textContent = text;
    row.appendChild(inner);
    log.appendChild(row);
    return inner;
  }

  function why(data) {
    const panel = el("div", "border border-dashed border-base-200 rounded-default px-3 py-2 text-sm dark:border-base-700");
    panel.dataset.testid = "test-bot-why";
    const head = el("div", "flex flex-row flex-wrap gap-2 items-center");
    const badge = el("span", "font-semibold px-2 py-1 rounded-default text-xs uppercase " + (BADGE[data.outcome] || BADGE.other));
    badge.textContent = strings[data.outcome] || data.outcome;
    badge.dataset.testid = "test-bot-outcome";
    badge.dataset.outcome = data.outcome;
    head.appendChild(badge);
    const best = data.why && data.why.best;
    if (best) {
      const score = el("span", "font-semibold", strings.score + " " + best.score.toFixed(2));
      score.dataset.testid = "test-bot-score";
      head.appendChild(score);
    }
    if (data.why && data.why.thresholds) {
      const t = data.why.thresholds;
      head.appendChild(
        el("span", "text-base-500 dark:text-base-400",
          "(" + strings.thresholds.replace("{direct}", t.direct.toFixed(2)).replace("{reword}", t.reword.toFixed(2)) + ")")
      );
    }
    panel.appendChild(head);
    if (data.item || best) {
      const line = el("div", "mt-2");
      line.appendChild(el("span", "text-base-500 dark:text-base-400", (data.item ? strings.item : strings.nearest) + ": "));
      const answered = itemLink(data.item || best);
      answered.dataset.testid = "test-bot-item";
      line.appendChild(answered);
      panel.appendChild(line);
    }
    if (best) {
      const line = el("div", "mt-2");
      line.appendChild(el("span", "text-base-500 dark:text-base-400", strings.matched + ": "));
      const matched = el("span", "italic", "« " + best.formulation + " »");
      matched.dataset.testid = "test-bot-formulation";
      line.appendChild(matched);
      panel.appendChild(line);
    }
    const others = (data.why && data.why.runnersUp) || [];
    if (others.length) {
      const line = el("div", "mt-2 flex flex-row flex-wrap gap-2");
      line.appendChild(el("span", "text-base-500 dark:text-base-400", strings.runnersUp + ":"));
      others.forEach((candidate) => {
        const entry = el("span", "");
        entry.dataset.testid = "test-bot-runner-up";
        entry.appendChild(itemLink(candidate));
        entry.appendChild(el("span", "text-base-500 dark:text-base-400", " " + candidate.score.toFixed(2)));
        line.appendChild(entry);
      });
      panel.appendChild(line);
    }
    return panel;
  }

  async function send(text) {
    bubble(text, true);
    const body = new URLSearchParams({
      userInput: text,
      language: form.language.value,
      space: form.space.value,
      contextId: contextId,
    });
    const answer = bubble("", false);
    try {
      const response = await fetch(box.dataset.url, {
        method: "POST",
        headers: { "X-CSRFToken": form.csrfmiddlewaretoken.value, "Content-Type": "application/x-www-form-urlencoded" },
        body: body,
        credentials: "same-origin",
      });
      const data = await response.json();
      if (!response.ok) {
        answer.textContent = data.error || strings.error; // the servlet's error shape: {error: text, code}
        return;
      }
      contextId = data.contextId;
      const text = el("div", "");
      text.dataset.testid = "test-bot-answer";
      text.innerHTML = data.text; // sanitised by the server (the platform's answer allowlist)
      answer.appendChild(text);
      answer.parentElement.after(why(data));
    } catch (error) {
      answer.textContent = strings.error;
    }
    log.scrollTop = log.scrollHeight;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    send(text);
  });
  box.querySelector("[data-testid=test-bot-reset]").addEventListener("click", () => {
    contextId = "";
    log.replaceChildren();
    input.focus();
  });
})();
