"""Who the agent acts as in Superset (DESIGN §15): per-user identities per environment, their encrypted secrets,
the sign-in backend that obtains them and the look-up every tool call's Superset client goes through."""
