// Package mcpbridge serves A2A agents as MCP tools (the `a2a mcp` verb): each skill of each agent's card becomes a
// tool, a call sends the agent a message and follows its task to the end, and the task model maps to MCP's: status
// updates become progress notifications, the host's cancellation cancels the task, input-required asks the host
// (elicitation) or returns the question with a `continue` tool, auth-required points to `a2a auth login`.
//
// It reaches agents only through package client and follows tasks through package follow, like every verb; it has
// no cobra and no flags, and writes nothing to stdout (the stdio transport owns it). The MCP Go SDK is linked only
// from here and from package cli's mcp verb.
package mcpbridge
