// The /agent page: WebSocket chat with streamed answers, tool progress and server-rendered cards (DESIGN §6).
"use strict";
(function () {
  const params = new URLSearchParams(window.location.search);
  const context = window.AgentContext.buildUIContext(params); // fixed for this page load
  const storageKey = "agentchat:conversation:" + window.location.search;
  let conversationId = Number(params.get("conversation")) || Number(sessionStorage.getItem(storageKey)) || null;
  let socket = null;
  let retryDelay = 500;
  const queue = [];

  const $ = (id) => document.getElementById(id);
  const messages = $("messages");
  const envSelect = $("env-select");

  function describeContext() {
    const el = $("context-summary");
    if (!context || !context.objectType) {
      el.textContent = "Без контекста (общий режим)";
      return;
    }
    const names = { dashboard: "Дашборд", dataset: "Датасет", migration: "Миграция" };
    el.textContent = `${names[context.objectType]} #${context.objectId || "?"}` +
      (context.objectName ? ` «${context.objectName}»` : "");
  }

  function envId() {
    return envSelect.value || null;
  }

  function currentContext() {
    if (!context) return envId() ? { contextVersion: 1, objectType: null, objectId: null, objectName: null, envId: envId(), route: null } : null;
    return Object.assign({}, context, { envId: envId() });
  }

  function append(html, cls) {
    const wrap = document.createElement("div");
    wrap.className = "entry " + (cls || "");
    wrap.innerHTML = html;
    messages.appendChild(wrap);
    messages.scrollTop = messages.scrollHeight;
    return wrap;
  }

  function appendText(text, cls) {
    const wrap = document.createElement("div");
    wrap.className = "entry " + (cls || "");
    const inner = document.createElement("div");
    inner.className = "msg " + (cls || "");
    inner.textContent = text;
    wrap.appendChild(inner);
    messages.appendChild(wrap);
    messages.scrollTop = messages.scrollHeight;
    return wrap;
  }

  function bubbleFor(messageId) {
    let el = messages.querySelector(`[data-message-id="${messageId}"]`);
    if (!el) {
      el = appendText("", "msg-assistant streaming");
      el.dataset.messageId = messageId;
      el.dataset.testid = "assistant-message";
    }
    return el;
  }

  const handlers = {
    conversation(f) {
      conversationId = f.conversation_id;
      sessionStorage.setItem(storageKey, String(conversationId));
      if (f.provider) $("provider").textContent = f.provider;
      if (f.context_status === "unavailable") appendText("Контекст недоступен: агент работает в общем режиме.", "msg-system");
    },
    token(f) {
      const el = bubbleFor(f.message_id);
      el.firstChild.textContent += f.text;
      messages.scrollTop = messages.scrollHeight;
    },
    message(f) {
      if (f.message_id == null) { append(f.html, "msg-system"); return; }
      const el = bubbleFor(f.message_id);
      el.innerHTML = f.html;
      el.classList.remove("streaming");
      el.setAttribute("data-testid", "assistant-message");
      el.dataset.final = "1";
    },
    tool_started(f) {
      const el = appendText(`⏳ ${f.tool}…`, "tool-status");
      el.dataset.callId = f.call_id;
    },
    tool_finished(f) {
      const el = messages.querySelector(`[data-call-id="${f.call_id}"]`) || appendText("", "tool-status");
      el.firstChild.textContent = `${f.ok ? "✓" : "✗"} ${f.tool} · ${f.duration_ms} мс` + (f.summarised ? " · сокращено для модели" : "");
      if (f.task_id && window.AgentTasks) window.AgentTasks.track(f.task_id, el); // background task progress
    },
    permission_denied(f) { window.AgentCards.show(f); },
    confirm_required(f) { window.AgentCards.show(f); },
    cancelled(f) { window.AgentCards.show(f); },
    error(f) { appendText(`⚠ ${f.message}`, "msg-error"); },
  };

  function send(frame) {
    const data = JSON.stringify(frame);
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(data);
    else queue.push(data);
  }

  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${window.location.host}/ws/agent/`);
    $("conn-state").textContent = "подключение…";
    socket.onopen = () => {
      retryDelay = 500;
      $("conn-state").textContent = "онлайн";
      document.body.dataset.ws = "open";
      if (conversationId) socket.send(JSON.stringify({ type: "resume", conversation_id: conversationId }));
      while (queue.length) socket.send(queue.shift());
    };
    socket.onmessage = (ev) => {
      let frame;
      try { frame = JSON.parse(ev.data); } catch (e) { return; }
      const handler = handlers[frame.event];
      if (handler) handler(frame);
    };
    socket.onclose = (ev) => {
      document.body.dataset.ws = "closed";
      if (ev.code === 4401) {
        $("conn-state").textContent = "нужен вход";
        window.location.href = "/accounts/login/?next=" + encodeURIComponent(window.location.pathname + window.location.search);
        return;
      }
      $("conn-state").textContent = "переподключение…";
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 10000);
    };
  }

  async function loadConversation(id) {
    const resp = await fetch(`/api/agent/conversations/${id}/`, { credentials: "same-origin" });
    if (!resp.ok) return;
    const data = await resp.json();
    for (const m of data.messages) appendText(m.content, m.role === "user" ? "msg-user" : "msg-assistant");
  }

  window.AgentCards.attach(messages, send);

  $("composer").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = $("input");
    const text = input.value.trim();
    if (!text) return;
    appendText(text, "msg-user");
    send({ type: "user_message", conversation_id: conversationId, text: text, context: conversationId && !context ? null : currentContext() });
    input.value = "";
  });
  $("input").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); $("composer").requestSubmit(); }
  });

  if (context && context.envId) {
    if (![...envSelect.options].some((o) => o.value === context.envId)) {
      const opt = document.createElement("option");
      opt.value = opt.textContent = context.envId;
      envSelect.appendChild(opt);
    }
    envSelect.value = context.envId;
  }
  describeContext();
  if (params.get("conversation")) loadConversation(conversationId);
  connect();
})();
