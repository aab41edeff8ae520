// The answer editor's preview: while an answer's text is typed, its sanitised rendering (the server's
// allowlist, never the raw HTML) replaces the pane under it.
(function () {
  "use strict";
  const TEXT = /^(answers|branches)-\d+-text$/;
  const timers = new WeakMap();

  function pane(textarea) {
    const row = textarea.closest(".form-group") || textarea.closest(".inline-related");
    return row ? row.querySelector("[data-answer-preview]") : null;
  }

  function csrf() {
    const input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  async function refresh(textarea) {
    const target = pane(textarea);
    const url = target && target.dataset.answerPreview;
    if (!target || !url) return;
    const body = new URLSearchParams({ text: textarea.value });
    const response = await fetch(url, {
      method: "POST",
      headers: { "X-CSRFToken": csrf(), "Content-Type": "application/x-www-form-urlencoded" },
      body: body,
      credentials: "same-origin",
    });
    const data = await response.json();
    if (response.ok) {
      target.innerHTML = data.html || "";
    } else {
      target.textContent = data.error || "Preview unavailable";
    }
    target.dataset.refreshed = String(Number(target.dataset.refreshed || 0) + 1);
  }

  document.addEventListener("input", function (event) {
    const textarea = event.target;
    if (!(textarea instanceof HTMLTextAreaElement) || !TEXT.test(textarea.name)) return;
    clearTimeout(timers.get(textarea));
    timers.set(textarea, setTimeout(() => refresh(textarea), 300));
  });
})();
