// Package cardsig owns signed agent cards (A2A §8.4): RFC 8785 canonical JSON (JCS), the classification of a
// card's JWS signatures (verified, unverifiable, invalid, absent), the keys that verify them (a JWKS from the
// header's jku, a --trust-keys file or URL, a pinned PEM key) and signing a served card. It works on the card's
// bytes, not on a2a-go's types, so that what is verified is what arrived. It imports no package of this repository
// but termsafe, and knows nothing of the CLI.
package cardsig
