"""The 22 tools (DESIGN §8), one module per domain; each registers itself with ``@assistant_tool``
(``agentchat.runtime.registry``) when ``AgentchatConfig.ready`` imports this package's modules."""
