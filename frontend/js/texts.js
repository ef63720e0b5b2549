// The chat page's texts in the page's language: rendered by the server from the gettext catalogue into
// <script id="chat-texts" type="application/json"> (agentchat/web/chat_texts.py); %(name)s placeholders.
"use strict";
window.AgentTexts = (function () {
  const el = document.getElementById("chat-texts");
  const texts = el ? JSON.parse(el.textContent) : {};
  /** The text of `key` with `params` filled in; an unknown key shows itself (a missing msgid is visible). */
  function t(key, params) {
    const text = Object.prototype.hasOwnProperty.call(texts, key) ? texts[key] : key;
    return text.replace(/%\((\w+)\)s/g, (m, name) => (params && name in params ? String(params[name]) : m));
  }
  return { t };
})();
