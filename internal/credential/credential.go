// Package credential says which names carry credentials: the header and
// query parameter names whose values stored test runs and session entries
// mask, the request headers an outbound request drops when a redirect
// leaves the first request's site, and the argument and result member
// names whose values promoting recorded calls redacts. One rule serves all
// of them, so that what is never stored is also never forwarded to another
// site, and never written into a design.
//
// A name is judged by its words, not its letters: "X-API-Key", "apiKey",
// "api_key" and "APIKey" all read api, key; "keyboard", "monkey", "author"
// and "spinner" hold none of the words, so they are kept. Words long enough
// to mean nothing else ("password", "secret", "token", ...) also count at
// the end of a word ("accesstoken", "clientsecret"), since names are often
// written run together.
package credential

import (
	"strings"
	"unicode"
)

// Headers are well-known credential headers. Is holds for each of them;
// tests of what masks or drops credentials go through this list.
var Headers = []string{
	"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key", "X-Auth-Token",
	"X-Access-Token", "X-Vault-Token", "Private-Token", "Job-Token", "X-Goog-Api-Key", "Ocp-Apim-Subscription-Key",
	"X-Amz-Security-Token", "X-Csrf-Token", "X-Xsrf-Token", "X-Hub-Signature-256", "X-Session-Token",
	"X-Client-Secret", "X-Refresh-Token", "X-Id-Token", "Dpop", "X-Jwt-Assertion", "X-Password",
}

// Names are credential names as query parameters and JSON members spell
// them: Is holds for each. Like Headers, they are what tests of the
// places that mask, drop or redact credentials go through.
var Names = []string{
	"api_key", "access_token", "X-Amz-Signature", "X-Amz-Credential", "password", "passwd", "pwd", "client_secret",
	"sig", "session_id", "apikey", "code_verifier_token", "pass", "pin", "otp", "PIN", "userPin", "pin_code", "otp_code",
	"totp", "secret", "token", "auth", "key", "session", "cookie", "ssn", "cvv", "private_key", "refresh_token",
	"bearer", "credential", "credentials", "signature", "apiKey", "APIKey", "xApiKey", "accessToken", "clientSecret",
	"accesstoken", "clientsecret", "mypassword", "passwordHash", "passphrase", "secret_key", "SECRET", "Pass-Word",
	"client_assertion", "connect.sid", "mfa_code", "cvc", "id_token", "authToken",
}

// NearMisses hold a credential word's letters, not the word, or name
// something beside a credential: Is holds for none of them.
var NearMisses = []string{
	"keyboard", "monkey", "turkey", "author", "authors", "spinner", "pinned", "shopping", "topt", "passenger", "passport",
	"compass", "bypass", "secretary", "tokenizer", "design", "signal", "Accept", "Content-Type", "X-Request-Id",
	"User-Agent", "X-Amz-Content-Sha256", "X-Amz-Date", "WWW-Authenticate", "Proxy-Authenticate", "Idempotency-Key",
	"Sec-WebSocket-Key", "Cache-Control", "Keep-Alive", "X-Trace", "q", "page", "", "max_tokens", "maxTokens",
	"prompt_tokens", "token_count", "token_type", "public_key", "key_id", "sort_key", "city", "options",
}

// Words are the words that mark a name as a credential's. A name holds
// one when one of its words (see the package comment) is one of them.
var Words = []string{
	// Secrets a person knows or is sent.
	"pass", "password", "passwd", "pwd", "passphrase", "passcode", "pin", "pincode", "otp", "totp", "hotp", "mfa",
	// Secrets a program holds.
	"secret", "secrets", "token", "tokens", "key", "keys", "apikey", "privatekey", "secretkey", "accesskey",
	"credential", "credentials", "creds", "auth", "authorization", "bearer", "jwt", "dpop",
	// Proof of a session or of a request's origin.
	"session", "sessionid", "sid", "cookie", "cookies", "csrf", "xsrf", "signature", "sig",
	// Payment card and identity numbers: never a credential of the
	// service's, but never something to copy into a design either.
	"ssn", "cvv", "cvc",
}

// endings are the Words that count at the end of a word run together
// ("accesstoken", "clientsecret", "mypassword"), plural or not; at its
// start they could begin another word ("secretary", "tokenizer").
var endings = []string{"password", "passwd", "passphrase", "passcode", "secret", "token", "credential", "signature",
	"cookie", "apikey", "bearer"}

// beginnings are the Words that also count at the start of a word
// ("passwordhash", "credentialid"): no other word begins with them.
var beginnings = []string{"password", "passwd", "passphrase", "passcode", "credential", "apikey"}

// named are credentials whose words are none of Words.
var named = map[string]bool{
	"client-assertion": true, // a signed JWT authenticating an OAuth client (RFC 7523)
}

// harmless are names that hold a word but carry no credential: hiding them
// would only make records harder to read. They are compared as their words
// joined by "-", and as written, lowercased.
var harmless = map[string]bool{
	"www-authenticate":   true, // a challenge, naming the scheme a server wants
	"proxy-authenticate": true,
	"idempotency-key":    true,
	"sec-websocket-key":  true, // a handshake nonce
	"public-key":         true,
	"key-id":             true, // names a key, as a JWT's kid does
	"token-type":         true, // "Bearer", in an OAuth token answer
	"token-endpoint":     true,
	"sort-key":           true,
	"partition-key":      true,
	"primary-key":        true,
	"foreign-key":        true,
	"cache-key":          true,
}

// counts are words after which "token" and "tokens" count language model
// tokens, not credentials ("max_tokens", "input_tokens", "token_count").
var counts = map[string]bool{"max": true, "min": true, "total": true, "input": true, "output": true, "prompt": true,
	"completion": true, "count": true, "limit": true, "usage": true, "cached": true, "reasoning": true}

var isWord = func() map[string]bool {
	m := make(map[string]bool, len(Words))
	for _, w := range Words {
		m[w] = true
	}
	return m
}()

// Is reports whether a header, query parameter or JSON member called name
// may carry a credential.
func Is(name string) bool {
	words := Split(name)
	joined := strings.Join(words, "-")
	switch {
	case len(words) == 0, harmless[joined], harmless[strings.ToLower(strings.TrimSpace(name))]:
		return false
	case named[joined]:
		return true
	}
	for i, w := range words {
		if (w == "token" || w == "tokens") && countsTokens(words, i) {
			continue
		}
		if isWord[w] {
			return true
		}
		for _, e := range endings {
			if strings.HasSuffix(w, e) || strings.HasSuffix(w, e+"s") {
				return true
			}
		}
		for _, b := range beginnings {
			if strings.HasPrefix(w, b) {
				return true
			}
		}
	}
	return false
}

// countsTokens reports whether words[i], "token" or "tokens", counts
// language model tokens: a counting word stands next to it.
func countsTokens(words []string, i int) bool {
	return i > 0 && counts[words[i-1]] || i+1 < len(words) && counts[words[i+1]]
}

// Split returns the lowercase words of a name: it breaks at every
// character that is not a letter or a digit, between a lowercase letter or
// a digit and an uppercase one ("apiKey"), before the last capital of a run
// followed by a lowercase letter ("APIKey" reads API, Key), and between
// letters and digits ("pin2").
func Split(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 {
			prev := cur[len(cur)-1]
			switch {
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				flush()
			case unicode.IsUpper(r) && !unicode.IsUpper(prev):
				flush()
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}
