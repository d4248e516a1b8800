// Package credential says which header and query parameter names carry
// credentials: the names whose values stored test runs and session entries
// mask, and the request headers an outbound request drops when a redirect
// leaves the first request's site. One rule serves both, so that what is
// never stored is also never forwarded to another site.
package credential

import "strings"

// Headers are well-known credential headers. Is holds for each of them;
// tests of what masks or drops credentials go through this list.
var Headers = []string{
	"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key", "X-Auth-Token",
	"X-Access-Token", "X-Vault-Token", "Private-Token", "Job-Token", "X-Goog-Api-Key", "Ocp-Apim-Subscription-Key",
	"X-Amz-Security-Token", "X-Csrf-Token", "X-Xsrf-Token", "X-Hub-Signature-256", "X-Session-Token",
	"X-Client-Secret", "X-Refresh-Token", "X-Id-Token", "Dpop", "X-Jwt-Assertion", "X-Password",
}

// words mark a credential anywhere in a name, case-insensitively: API keys
// travel in headers and parameters of any name (X-API-Key, Private-Token,
// X-Goog-Api-Key, access_token, X-Amz-Signature), so the rule errs towards
// hiding.
var words = []string{
	"auth", "token", "secret", "key", "passw", "pwd", "signature", "session",
	"credential", "cookie", "csrf", "xsrf", "jwt", "bearer",
}

// named are credentials whose names hold none of the words.
var named = map[string]bool{
	"sig":  true, // the signature of an Azure shared access signature URL
	"dpop": true, // an OAuth proof-of-possession token (RFC 9449)
}

// notSecret are names that hold a word but carry no credential: hiding them
// would only make records harder to read.
var notSecret = map[string]bool{
	"www-authenticate":   true, // a challenge, naming the scheme a server wants
	"proxy-authenticate": true,
	"idempotency-key":    true,
	"sec-websocket-key":  true, // a handshake nonce
}

// Is reports whether a header or query parameter called name may carry a
// credential.
func Is(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" || notSecret[n] {
		return false
	}
	if named[n] {
		return true
	}
	for _, w := range words {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
