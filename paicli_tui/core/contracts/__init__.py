"""Contracts: the types and protocols every core layer agrees on.

Tools, the session's shared state, what the agent asks the person, the events a turn yields,
the model and embedder protocols, the service seams, and shell-command classification. This
package imports nothing of the core except messages; every engine and the agent import it.
"""
