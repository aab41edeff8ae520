// The import / export page (knowledge/backoffice/exchange.py): the import form is sent with XMLHttpRequest
// so that a bar shows the upload's progress; the server answers with the whole page, whose result block
// (summary or refusal) replaces this one's. While formulation vectors are computed after an import, their
// progress is polled from the status URL until they are done. Without script the forms work as they are.
(function () {
  "use strict";
  const root = document.querySelector("[data-testid=kb-exchange]");
  if (!root) return;
  const strings = {};
  const template = document.getElementById("exchange-strings");
  if (template && template.content) {
    template.content.querySelectorAll("span").forEach((s) => (strings[s.dataset.k] = s.textContent));
  }
  const POLL_MS = 2000;
  let polling = null;

  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? values[key] : whole));
  }

  function percentText(fraction) {
    return fraction.toLocaleString(document.documentElement.lang || undefined, { style: "percent" });
  }

  function megabytes(bytes) {
    const large = bytes >= 1024 * 1024;
    const value = large ? bytes / (1024 * 1024) : bytes / 1024;
    const size = value.toLocaleString(document.documentElement.lang || undefined, { maximumFractionDigits: 1 });
    return fill(large ? strings.megabytes : strings.kilobytes, { size: size });
  }

  // --- Vectors' progress ---------------------------------------------------------------------------
  function showVectors(box, vectors) {
    box.dataset.state = vectors.state;
    const total = Math.max(vectors.total || 0, 0);
    const done = Math.min(vectors.done || 0, total);
    box.querySelector(".bar span").style.width = (total ? Math.round((100 * done) / total) : 100) + "%";
    const key = vectors.state === "done" ? "vectorsDone" : vectors.state === "failed" ? "vectorsFailed" : "vectorsRunning";
    box.querySelector("[data-testid=vectors-text]").textContent = fill(strings[key], { done: done, total: total });
  }

  function pollVectors() {
    const box = root.querySelector("[data-testid=vectors]");
    if (polling) clearTimeout(polling);
    polling = null;
    if (!box || !["pending", "running"].includes(box.dataset.state)) return;
    polling = setTimeout(() => {
      fetch(root.dataset.statusUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then((response) => (response.ok ? response.json() : Promise.reject(response.status)))
        .then((status) => {
          showVectors(box, status.vectors);
          pollVectors();
        })
        .catch(() => pollVectors());
    }, POLL_MS);
  }

  // --- Import with an upload progress bar -----------------------------------------------------------
  const form = root.querySelector("[data-testid=import-form]");
  const progress = root.querySelector("[data-testid=upload-progress]");
  const slot = root.querySelector("[data-testid=import-result-slot]");

  function say(text, percent) {
    progress.hidden = false;
    progress.querySelector(".progress-text").textContent = text;
    progress.querySelector(".bar span").style.width = percent + "%";
  }

  function refuse(text) {
    progress.hidden = true;
    slot.replaceChildren();
    const box = document.createElement("div");
    box.className = "result refused";
    box.setAttribute("role", "alert");
    box.dataset.testid = "import-refused";
    const title = document.createElement("h3");
    title.textContent = text;
    box.appendChild(title);
    slot.appendChild(box);
  }

  function showAnswer(html) {
    const answer = new DOMParser().parseFromString(html, "text/html");
    const fresh = answer.querySelector("[data-testid=import-result-slot]");
    const holds = answer.querySelector("[data-testid=holds]");
    if (!fresh) return false;
    slot.replaceChildren(...fresh.childNodes);
    if (holds) root.querySelector("[data-testid=holds]").replaceWith(holds);
    progress.hidden = true;
    pollVectors();
    return true;
  }

  if (form) {
    const input = form.querySelector("input[type=file]");
    const chosen = form.querySelector("[data-testid=import-file-name]");
    input.addEventListener("change", () => {
      if (input.files[0]) chosen.textContent = input.files[0].name;
    });
    form.addEventListener("submit", (event) => {
      const file = form.querySelector("input[type=file]").files[0];
      if (!file) return; // the browser's own "required" message
      event.preventDefault();
      if (file.size > Number(form.dataset.maxBytes)) {
        refuse(strings.tooLarge);
        return;
      }
      const buttons = form.querySelectorAll("button");
      buttons.forEach((button) => (button.disabled = true));
      slot.replaceChildren();
      const request = new XMLHttpRequest();
      request.open("POST", form.action);
      request.setRequestHeader("X-Requested-With", "XMLHttpRequest");
      request.upload.addEventListener("progress", (e) => {
        if (!e.lengthComputable) return;
        const percent = Math.round((100 * e.loaded) / e.total);
        const values = { percent: percentText(e.loaded / e.total), done: megabytes(e.loaded), total: megabytes(e.total) };
        say(fill(strings.sending, values), percent);
      });
      request.upload.addEventListener("load", () => say(strings.importing, 100));
      request.addEventListener("load", () => {
        buttons.forEach((button) => (button.disabled = false));
        // 413 from the server's body limit (before Django) comes as JSON: no page to take the result from.
        if (request.status === 413 && !showAnswer(request.responseText)) refuse(strings.tooLarge);
        else if (!showAnswer(request.responseText)) refuse(strings.failed);
      });
      request.addEventListener("error", () => {
        buttons.forEach((button) => (button.disabled = false));
        refuse(strings.failed);
      });
      say(fill(strings.sending, { percent: percentText(0), done: megabytes(0), total: megabytes(file.size) }), 0);
      request.send(new FormData(form));
    });
  }

  pollVectors();
})();
