// The answer editor (knowledge/backoffice/answer_editor.py): a Trix rich-text editor over the answer's
// textarea, which stays the posted value. The chatbox's own pieces have an editor form Trix keeps:
// reword links as links to "#reword?q=…&type=…" (the server turns them back into reword links when it
// saves), bubble breaks (<hr>) and gallery images as attachments. The editor is built for the rows on
// the page and for each row added later, never for the hidden template row it is copied from.
(function () {
  "use strict";
  const BREAK = '<hr>';
  const REWORD = /reword\('((?:[^'\\]|\\.)*)',\{'type':'(\w+)'((?:,'\w+':'(?:[^'\\]|\\.)*')*)\}\)/;
  const OPTION = /,'(\w+)':'((?:[^'\\]|\\.)*)'/g;
  const unescapeJs = (text) => text.replace(/\\(.)/g, "$1");

  function parse(html) {
    const template = document.createElement("template");
    template.innerHTML = html || "";
    return template.content;
  }

  function serialise(fragment) {
    const box = document.createElement("div");
    box.appendChild(fragment);
    return box.innerHTML;
  }

  function breakAttachment() {
    return new Trix.Attachment({ content: '<hr>', contentType: "application/vnd.bot.bubble-break" });
  }

  // The stored answer as Trix should load it.
  function toEditor(html) {
    const content = parse(html);
    content.querySelectorAll("a[onclick]").forEach((link) => {
      const call = REWORD.exec(link.getAttribute("onclick") || "");
      if (!call) return;
      const query = new URLSearchParams({ q: unescapeJs(call[1]), type: call[2] });
      for (const option of call[3].matchAll(OPTION)) query.set(option[1], unescapeJs(option[2]));
      ["onclick", "class", "target", "rel"].forEach((name) => link.removeAttribute(name));
      link.setAttribute("href", "#reword?" + query.toString());
    });
    content.querySelectorAll("hr").forEach((rule) => {
      const figure = document.createElement("figure");
      figure.setAttribute("data-trix-attachment", JSON.stringify(breakAttachment().toJSON()));
      rule.replaceWith(figure);
    });
    return serialise(content);
  }

  // Trix's HTML as the answer stores it: attachments back to plain <img> and <hr>.
  function fromEditor(html) {
    const content = parse(html);
    content.querySelectorAll("figure[data-trix-attachment]").forEach((figure) => {
      let attachment = {};
      try {
        attachment = JSON.parse(figure.getAttribute("data-trix-attachment"));
      } catch (error) {
        attachment = {};
      }
      if (attachment.content === BREAK) {
        figure.replaceWith(parse(BREAK));
      } else if (attachment.url) {
        const image = document.createElement("img");
        image.setAttribute("src", attachment.url);
        image.setAttribute("alt", attachment.filename || "");
        figure.replaceWith(image);
      } else {
        figure.remove();
      }
    });
    return serialise(content);
  }

  function selectedText(trix) {
    const range = trix.getSelectedRange();
    return range[0] === range[1] ? "" : trix.getDocument().getStringAtRange(range).trim();
  }

  function setMode(box, mode) {
    box.dataset.mode = mode;
    box.querySelectorAll("[data-editor-mode]").forEach((button) => {
      button.setAttribute("aria-pressed", String(button.dataset.editorMode === mode));
    });
  }

  function announce(textarea) {
    // The preview (answer_preview.js) and the tab counters listen for input on the textarea.
    textarea.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function build(box) {
    if (box.dataset.built || box.closest(".empty-form") || /__prefix__/.test(box.querySelector("textarea").name)) return;
    box.dataset.built = "1";
    const textarea = box.querySelector("textarea");
    const editor = document.createElement("trix-editor");
    editor.classList.add("trix-content", "border", "border-base-200", "rounded-default", "bg-white", "px-3", "py-2",
      "text-sm", "dark:bg-base-900", "dark:border-base-700");
    editor.setAttribute("aria-label", textarea.getAttribute("aria-label") || textarea.name);
    box.querySelector("[data-editor-rich]").appendChild(editor);
    let loaded = null; // Trix's rendering of the stored answer: not a change until the person edits it

    editor.addEventListener("trix-initialize", () => {
      if (box.dataset.mode === "rich") load();
    });
    function load() {
      loaded = undefined; // trix-change fires inside loadHTML: not an edit
      editor.editor.loadHTML(toEditor(textarea.value));
      loaded = editor.value;
    }
    editor.addEventListener("trix-change", () => {
      if (box.dataset.mode !== "rich" || loaded === undefined || editor.value === loaded) return;
      textarea.value = fromEditor(editor.value);
      announce(textarea);
    });
    // Files dropped or pasted into the editor are not uploaded anywhere: images come from the gallery.
    editor.addEventListener("trix-file-accept", (event) => event.preventDefault());

    box.querySelectorAll("[data-editor-mode]").forEach((button) => {
      button.addEventListener("click", () => {
        if (button.disabled || box.dataset.mode === button.dataset.editorMode) return;
        setMode(box, button.dataset.editorMode);
        if (button.dataset.editorMode === "rich" && editor.editor) load();
      });
    });
    box.querySelector("[data-editor-piece=question]").addEventListener("click", (event) => {
      const question = window.prompt(event.currentTarget.dataset.prompt, selectedText(editor.editor));
      if (!question || !question.trim()) return;
      const link = document.createElement("a");
      link.setAttribute("href", "#reword?" + new URLSearchParams({ q: question.trim(), type: "redirection_knowledge" }));
      link.textContent = question.trim();
      editor.editor.insertHTML(link.outerHTML);
    });
    box.querySelector("[data-editor-piece=bubble]").addEventListener("click", () => {
      editor.editor.insertAttachment(breakAttachment());
    });
    box.querySelectorAll("[data-editor-image]").forEach((button) => {
      button.addEventListener("click", () => {
        const name = button.dataset.name;
        editor.editor.insertAttachment(new Trix.Attachment({ url: button.dataset.editorImage, filename: name,
          contentType: "image", previewable: true }));
        button.closest("details").open = false;
      });
    });
    setMode(box, box.dataset.mode);
  }

  function buildAll(root) {
    (root || document).querySelectorAll("[data-answer-editor]").forEach(build);
  }

  document.addEventListener("DOMContentLoaded", () => buildAll(document));
  document.addEventListener("formset:added", (event) => buildAll(event.target));
})();
