// UIContext v1 from the /agent URL (DESIGN §7; seed AGCTX-FR-001/003). Built once per page load; only envId
// changes later (the environment selector). Also decides which conversation a page load continues.
"use strict";
(function (global) {
  const OBJECT_TYPES = ["dashboard", "dataset", "migration"];
  const KEYS = ["objectType", "objectId", "objectName", "envId", "route"];
  const STORAGE_PREFIX = "agentchat:conversation:";

  /** Build a UIContext from URLSearchParams; null when the URL names no object and no environment.
   *  An unknown objectType becomes null together with its id and name (the server would reject it with 422). */
  function buildUIContext(params) {
    if (!KEYS.some((k) => params.has(k))) return null;
    const get = (k) => (params.get(k) === null || params.get(k) === "" ? null : params.get(k));
    const objectType = OBJECT_TYPES.includes(get("objectType")) ? get("objectType") : null;
    return {
      contextVersion: 1,
      objectType: objectType,
      objectId: objectType ? get("objectId") : null,
      objectName: objectType ? get("objectName") : null,
      envId: get("envId"),
      route: get("route"),
    };
  }

  /** The same context with another envId (the selector's value, null when none is picked). */
  function withEnv(context, envId) {
    if (!context) {
      return envId ? { contextVersion: 1, objectType: null, objectId: null, objectName: null, envId: envId, route: null } : null;
    }
    return Object.assign({}, context, { envId: envId || null });
  }

  /** How this document was reached: "navigate", "reload" or "back_forward" (Navigation Timing Level 2). */
  function navigationType() {
    const entry = global.performance && performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
    return entry ? entry.type : "navigate";
  }

  /** Which conversation this page load continues.
   *  `?conversation=ID` (history) → that one. A reload or back/forward of the same URL in the same tab → the one
   *  this tab had there (sessionStorage is per tab). Any fresh visit (a «Спросить агента» click, a new tab) →
   *  null: a new conversation with the new context, never an old one with a stale context. */
  function initialConversation(params, storage, navType) {
    const fromHistory = Number(params.get("conversation"));
    if (Number.isInteger(fromHistory) && fromHistory > 0) return { id: fromHistory, source: "history" };
    const key = STORAGE_PREFIX + params.toString();
    if (navType === "reload" || navType === "back_forward") {
      const stored = Number(storage.getItem(key));
      if (Number.isInteger(stored) && stored > 0) return { id: stored, source: "tab" };
    }
    storage.removeItem(key);
    return { id: null, source: "new" };
  }

  /** Remember the conversation of this URL in this tab (for reloads). */
  function rememberConversation(params, storage, id) {
    if (!params.get("conversation")) storage.setItem(STORAGE_PREFIX + params.toString(), String(id));
  }

  global.AgentContext = {
    buildUIContext: buildUIContext,
    withEnv: withEnv,
    navigationType: navigationType,
    initialConversation: initialConversation,
    rememberConversation: rememberConversation,
    OBJECT_TYPES: OBJECT_TYPES,
  };
})(window);
