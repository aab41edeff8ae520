/* The API console's additions to Swagger UI (bots/servlet/console_page.py gives the page's words):
   - under a chat answer, its values decoded: every string under `values` is base64 of UTF-8 text on the
     wire (bots/servlet/envelope.py), unreadable as is;
   - talk, context and welcome calls sent as test dialogs (qualificationMode=true), so that trying the
     API never adds a visitor's dialog to analytics or learning. The field is set on the request itself,
     so the curl line the console shows carries it too.
   Loaded before drf-spectacular's script, which then starts Swagger UI through the wrapper below. */
(function () {
  "use strict";

  const words = JSON.parse(document.getElementById("api-console").textContent);
  const testDialogCalls = new RegExp(words.testDialogCalls);
  const FIELD = "qualificationMode";
  const utf8 = new TextDecoder("utf-8", { fatal: true });

  /* A string's text if it is base64 of UTF-8 (JSON text parsed), else the string as sent. */
  function decodedString(value) {
    if (value.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return value;
    let text;
    try {
      text = utf8.decode(Uint8Array.from(atob(value), (char) => char.charCodeAt(0)));
    } catch (error) {
      return value;
    }
    if (/^\s*[[{]/.test(text)) {
      try {
        return JSON.parse(text);
      } catch (error) {
        return text;
      }
    }
    return text;
  }

  function decoded(value) {
    if (typeof value === "string") return decodedString(value);
    if (Array.isArray(value)) return value.map(decoded);
    if (value && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, decoded(item)]));
    }
    return value;
  }

  /* The chat envelope {"type", "values"} of an answer's text, or null for any other answer. */
  function envelope(text) {
    if (typeof text !== "string" || !text.trim().startsWith("{")) return null;
    try {
      const body = JSON.parse(text);
      return body && typeof body === "object" && "values" in body ? body : null;
    } catch (error) {
      return null;
    }
  }

  function isTestDialogCall(url) {
    return testDialogCalls.test(new URL(url, document.baseURI).pathname);
  }

  /* Sets qualificationMode=true wherever the request carries its fields: the query string of a GET (or of
     a POST without a body), a form, a multipart body or a JSON object. */
  function asTestDialog(request) {
    if (!request || !request.url || !isTestDialogCall(request.url)) return request;
    const body = request.body;
    const type = String((request.headers || {})["Content-Type"] || (request.headers || {})["content-type"] || "");
    if ((request.method || "GET").toUpperCase() === "GET" || body === undefined || body === null || body === "") {
      const url = new URL(request.url, document.baseURI);
      url.searchParams.set(FIELD, "true");
      request.url = url.href;
    } else if (typeof FormData !== "undefined" && body instanceof FormData) {
      body.set(FIELD, "true");
    } else if (typeof body === "string" && type.includes("json")) {
      const fields = JSON.parse(body);
      fields[FIELD] = true;
      request.body = JSON.stringify(fields);
    } else if (typeof body === "string") {
      const form = new URLSearchParams(body);
      form.set(FIELD, "true");
      request.body = form.toString();
    }
    return request;
  }

  /* Below Swagger UI's live answer: the decoded values, and the test-dialog note for those calls. */
  function DecodedAnswer(system) {
    return {
      wrapComponents: {
        liveResponse: (Original, { React }) =>
          function LiveResponseDecoded(props) {
            const h = React.createElement;
            const answer = envelope(props.response && props.response.get("text"));
            const sent = props.specSelectors.mutatedRequestFor(props.path, props.method);
            const testDialog = sent && sent.get("url") && isTestDialogCall(sent.get("url"));
            const parts = [h(Original, { ...props, key: "raw" })];
            if (testDialog) {
              parts.push(h("p", { key: "test", className: "api-console-test-dialog" }, words.testDialog));
            }
            if (answer) {
              const shown = { ...answer, values: decoded(answer.values) };
              parts.push(
                h(
                  "section",
                  { key: "decoded", className: "api-console-decoded" },
                  h("h4", null, words.decodedTitle),
                  h("p", null, words.decodedHelp),
                  h("pre", { className: "api-console-decoded-values" }, JSON.stringify(shown, null, 2)),
                ),
              );
            }
            return h("div", null, parts);
          },
      },
    };
  }

  const start = window.SwaggerUIBundle;
  window.SwaggerUIBundle = new Proxy(start, {
    apply(target, self, [config]) {
      const intercept = config.requestInterceptor || ((request) => request);
      return target.call(self, {
        ...config,
        plugins: [...(config.plugins || []), DecodedAnswer],
        requestInterceptor: (request, ...rest) => asTestDialog(intercept(request, ...rest) || request),
      });
    },
  });
})();
