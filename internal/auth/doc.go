// Package auth owns OAuth 2 and OpenID Connect for agents whose cards ask for it: choosing a flow from the card's
// security schemes (client credentials, device code per RFC 8628; openIdConnect through discovery), running it with
// golang.org/x/oauth2, and the token store (one 0600 file under the user's config directory, an entry per agent
// origin and scheme, whose secrets may live in the OS keyring instead: Vault, OSKeyring) with refresh before
// expiry. It knows nothing of the CLI: no cobra, no flags, no output.
package auth
