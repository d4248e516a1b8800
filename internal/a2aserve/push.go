package a2aserve

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/outbound"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ErrPushNotSupported is A2A's PushNotificationNotSupportedError: the
// card does not declare the async capability (rendered as
// capabilities.pushNotifications), or the service delivers none.
var ErrPushNotSupported = &jsonrpc.Error{Code: -32003, Message: "Push Notification is not supported"}

// Sealer seals a config's token and credentials at rest (the service's
// key) and opens them for delivery.
type Sealer interface {
	Seal(values map[string]string) ([]byte, error)
	Open(sealed []byte) (map[string]string, error)
}

// PushConfigs keeps the tasks' push-notification configs (the store in
// production), each call in a transaction of the card's organization.
type PushConfigs interface {
	PutA2APushConfig(ctx context.Context, c store.A2APushConfig) error
	A2APushConfig(ctx context.Context, orgID, cardID, taskID uuid.UUID, id string) (store.A2APushConfig, error)
	A2APushConfigs(ctx context.Context, orgID, cardID, taskID uuid.UUID) ([]store.A2APushConfig, error)
	DeleteA2APushConfig(ctx context.Context, orgID, cardID, taskID uuid.UUID, id string) error
}

// Push is what push notifications take: where configs are kept, the key
// that seals their secrets, and the outbound client deliveries go through.
type Push struct {
	Configs PushConfigs
	Sealer  Sealer
	// AllowPrivate (ALLOW_PRIVATE_TARGETS) lets a config name a private,
	// loopback or metadata address; the client must then allow them too.
	AllowPrivate bool
	// Client posts the notifications: an outbound client, whose address
	// policy is judged again at every connection.
	Client HTTPDoer
}

// WithPush makes the handler accept push-notification configs for the
// cards that declare the async capability, and deliver them.
func (h *Handler) WithPush(p Push) *Handler {
	h.push = newPusher(h, p)
	return h
}

// Limits of a config's fields.
const (
	maxConfigID  = 256
	maxPushURL   = 2048
	maxPushToken = 4096
)

// wirePushConfig is a PushNotificationConfig in either era: 1.0's
// authentication has a scheme, 0.3's a list of schemes.
type wirePushConfig struct {
	ID             string `json:"id"`
	URL            string `json:"url"`
	Token          string `json:"token"`
	Authentication *struct {
		Scheme      string   `json:"scheme"`
		Schemes     []string `json:"schemes"`
		Credentials string   `json:"credentials"`
	} `json:"authentication"`
}

// pushParams are the params of the config methods of both eras: 1.0's
// {taskId, id, url, ...} (or with the config under config), 0.3's
// {taskId, pushNotificationConfig} to set and {id, pushNotificationConfigId}
// to get, list and delete.
type pushParams struct {
	TaskID   string `json:"taskId"`
	ConfigID string `json:"configId"`
	wirePushConfig
	Config                   *wirePushConfig `json:"config"`
	PushNotificationConfig   *wirePushConfig `json:"pushNotificationConfig"`
	PushNotificationConfigID string          `json:"pushNotificationConfigId"`
	PageSize                 *int            `json:"pageSize"`
	PageToken                string          `json:"pageToken"`
}

func readPushParams(raw json.RawMessage) (pushParams, error) {
	var p pushParams
	if len(raw) == 0 {
		return p, fmt.Errorf("%w: params.taskId is required", jsonrpc.ErrInvalidParams)
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, fmt.Errorf("%w: params: %v", jsonrpc.ErrInvalidParams, err)
	}
	return p, nil
}

// target is the task and config a get or delete names: 1.0's {taskId, id},
// 0.3's {id, pushNotificationConfigId}; a config id left out is the task's
// own id, the id a config set without one takes.
func (p pushParams) target(era string) (task, config string) {
	if era == Version03 || p.TaskID == "" {
		task, config = p.ID, p.PushNotificationConfigID
	} else {
		task, config = p.TaskID, p.ID
	}
	if config == "" {
		config = task
	}
	return task, config
}

// pushTask checks that the card takes configs and that task is one of its
// tasks.
func (h *Handler) pushTask(c *call, task string) (uuid.UUID, error) {
	if h.push == nil || c.agent.Card.Capabilities == nil || !c.agent.Card.Capabilities.Async {
		return uuid.Nil, jsonrpc.WithData(ErrPushNotSupported, map[string]string{"capability": "pushNotifications"})
	}
	if task == "" {
		return uuid.Nil, fmt.Errorf("%w: params.taskId is required", jsonrpc.ErrInvalidParams)
	}
	id, err := taskID(task)
	if err != nil {
		return uuid.Nil, err
	}
	if _, err := h.tasks.A2ATask(c.ctx, c.agent.OrgID, c.agent.ID, id); err != nil {
		return uuid.Nil, taskError(err, task)
	}
	return id, nil
}

// createPushConfig answers CreateTaskPushNotificationConfig
// (tasks/pushNotificationConfig/set).
func (h *Handler) createPushConfig(c *call) (any, error) {
	p, err := readPushParams(c.params)
	if err != nil {
		return nil, err
	}
	cfg, field := p.wirePushConfig, "params"
	switch {
	case p.PushNotificationConfig != nil:
		cfg, field = *p.PushNotificationConfig, "params.pushNotificationConfig"
	case p.Config != nil:
		cfg, field = *p.Config, "params.config"
	}
	if cfg.ID == "" {
		cfg.ID = p.ConfigID
	}
	task := p.TaskID
	if task == "" && c.era == Version03 {
		task = p.ID
	}
	id, err := h.pushTask(c, task)
	if err != nil {
		return nil, err
	}
	stored, err := h.storePushConfig(c, id, cfg, field)
	if err != nil {
		return nil, err
	}
	h.push.watch(c.agent, id)
	return pushWire(c.era, stored), nil
}

// storePushConfig checks cfg (field names where it sits in the params),
// seals its secrets and sets it on task id.
func (h *Handler) storePushConfig(c *call, id uuid.UUID, cfg wirePushConfig, field string) (store.A2APushConfig, error) {
	s, err := h.preparePushConfig(c, cfg, field)
	if err != nil {
		return s, err
	}
	return h.putPushConfig(c, id, s, field)
}

// putPushConfig sets s, prepared, on task id.
func (h *Handler) putPushConfig(c *call, id uuid.UUID, s store.A2APushConfig, field string) (store.A2APushConfig, error) {
	s.TaskID = id
	if s.ID == "" {
		s.ID = id.String()
	}
	if err := h.push.Configs.PutA2APushConfig(c.ctx, s); err != nil {
		if errors.Is(err, store.ErrTooManyA2APushConfigs) {
			return s, jsonrpc.WithData(fmt.Errorf("%w: %s.id: %v", jsonrpc.ErrInvalidParams, field, err),
				map[string]string{"field": field + ".id", "reason": err.Error()})
		}
		return s, taskError(err, id.String())
	}
	return s, nil
}

// preparePushConfig checks cfg (field names where it sits in the params)
// and seals its secrets: the config to store, but for its task.
func (h *Handler) preparePushConfig(c *call, cfg wirePushConfig, field string) (store.A2APushConfig, error) {
	invalid := func(name, reason string) error {
		return jsonrpc.WithData(fmt.Errorf("%w: %s.%s %s", jsonrpc.ErrInvalidParams, field, name, reason),
			map[string]string{"field": field + "." + name, "reason": reason})
	}
	switch {
	case len(cfg.ID) > maxConfigID:
		return store.A2APushConfig{}, invalid("id", fmt.Sprintf("must be at most %d characters", maxConfigID))
	case cfg.URL == "":
		return store.A2APushConfig{}, invalid("url", "is required")
	case len(cfg.URL) > maxPushURL:
		return store.A2APushConfig{}, invalid("url", fmt.Sprintf("must be at most %d characters", maxPushURL))
	case len(cfg.Token) > maxPushToken:
		return store.A2APushConfig{}, invalid("token", fmt.Sprintf("must be at most %d characters", maxPushToken))
	case strings.ContainsAny(cfg.Token, "\r\n"):
		return store.A2APushConfig{}, invalid("token", "must be one line")
	}
	if err := outbound.CheckURL(cfg.URL); err != nil {
		return store.A2APushConfig{}, invalid("url", err.Error())
	}
	if !h.push.AllowPrivate {
		if reason, forbidden := forbiddenHost(c.ctx, cfg.URL); forbidden {
			return store.A2APushConfig{}, invalid("url", "points at "+reason+", which this service does not post to")
		}
	}
	secrets := map[string]string{}
	if cfg.Token != "" {
		secrets["token"] = cfg.Token
	}
	scheme := ""
	if a := cfg.Authentication; a != nil {
		scheme = a.Scheme
		if scheme == "" && len(a.Schemes) > 0 {
			scheme = a.Schemes[0]
		}
		switch {
		case scheme == "" && a.Credentials != "":
			return store.A2APushConfig{}, invalid("authentication.scheme", "is required with credentials")
		case strings.ContainsAny(scheme, " \r\n:") || len(scheme) > 64:
			return store.A2APushConfig{}, invalid("authentication.scheme", "must be one HTTP authentication scheme name, such as Bearer")
		case strings.ContainsAny(a.Credentials, "\r\n") || len(a.Credentials) > maxPushToken:
			return store.A2APushConfig{}, invalid("authentication.credentials", fmt.Sprintf("must be one line of at most %d characters", maxPushToken))
		}
		if a.Credentials != "" {
			secrets["credentials"] = a.Credentials
		}
	}
	sealed, err := h.push.Sealer.Seal(secrets)
	if err != nil {
		return store.A2APushConfig{}, err
	}
	return store.A2APushConfig{ID: cfg.ID, OrgID: c.agent.OrgID, CardID: c.agent.ID, URL: cfg.URL,
		Scheme: scheme, Secrets: sealed, Era: c.era}, nil
}

// forbiddenHost judges the host of raw (a checked URL) by the outbound
// address policy: a literal address, localhost, or a name that resolves
// to a forbidden address. A name that does not resolve passes: the
// connection-time guard judges every delivery anyway.
func forbiddenHost(ctx context.Context, raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "loopback addresses", true
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return outbound.IsForbiddenAddr(ip)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return "", false
	}
	for _, ip := range ips {
		if reason, forbidden := outbound.IsForbiddenAddr(ip.Unmap()); forbidden {
			return reason, true
		}
	}
	return "", false
}

// pushWire is a config as answered: its token and credentials are never
// read back.
func pushWire(era string, s store.A2APushConfig) any {
	if era == Version03 {
		cfg := map[string]any{"id": s.ID, "url": s.URL}
		if s.Scheme != "" {
			cfg["authentication"] = map[string]any{"schemes": []string{s.Scheme}}
		}
		return map[string]any{"taskId": s.TaskID.String(), "pushNotificationConfig": cfg}
	}
	out := map[string]any{"id": s.ID, "taskId": s.TaskID.String(), "url": s.URL}
	if s.Scheme != "" {
		out["authentication"] = map[string]any{"scheme": s.Scheme}
	}
	return out
}

// getPushConfig answers GetTaskPushNotificationConfig
// (tasks/pushNotificationConfig/get).
func (h *Handler) getPushConfig(c *call) (any, error) {
	p, err := readPushParams(c.params)
	if err != nil {
		return nil, err
	}
	task, config := p.target(c.era)
	id, err := h.pushTask(c, task)
	if err != nil {
		return nil, err
	}
	s, err := h.push.Configs.A2APushConfig(c.ctx, c.agent.OrgID, c.agent.ID, id, config)
	if err != nil {
		return nil, configError(err, config)
	}
	return pushWire(c.era, s), nil
}

// configError turns the store's not-found into invalid params naming the
// config id.
func configError(err error, config string) error {
	if errors.Is(err, failure.ErrNotFound) {
		return jsonrpc.WithData(fmt.Errorf("%w: no push-notification config %q on this task", jsonrpc.ErrInvalidParams, config),
			map[string]string{"field": "params.id", "reason": "no such push-notification config"})
	}
	return err
}

// listPushConfigs answers ListTaskPushNotificationConfigs
// (tasks/pushNotificationConfig/list): 1.0 pages them, 0.3 answers them
// all.
func (h *Handler) listPushConfigs(c *call) (any, error) {
	p, err := readPushParams(c.params)
	if err != nil {
		return nil, err
	}
	task, _ := p.target(c.era)
	id, err := h.pushTask(c, task)
	if err != nil {
		return nil, err
	}
	all, err := h.push.Configs.A2APushConfigs(c.ctx, c.agent.OrgID, c.agent.ID, id)
	if err != nil {
		return nil, err
	}
	if c.era == Version03 {
		out := make([]any, 0, len(all))
		for _, s := range all {
			out = append(out, pushWire(c.era, s))
		}
		return out, nil
	}
	size, offset := store.MaxA2APushConfigsPerTask, 0
	if p.PageSize != nil {
		if *p.PageSize < 1 || *p.PageSize > maxPageSize {
			return nil, fmt.Errorf("%w: params.pageSize must be from 1 to %d, got %d", jsonrpc.ErrInvalidParams, maxPageSize, *p.PageSize)
		}
		size = *p.PageSize
	}
	if p.PageToken != "" {
		raw, err := base64.RawURLEncoding.DecodeString(p.PageToken)
		if err == nil {
			offset, err = strconv.Atoi(string(raw))
		}
		if err != nil || offset < 0 {
			return nil, fmt.Errorf("%w: params.pageToken is not a token this agent gave", jsonrpc.ErrInvalidParams)
		}
	}
	configs, next := []any{}, ""
	for i := offset; i < len(all) && i < offset+size; i++ {
		configs = append(configs, pushWire(c.era, all[i]))
	}
	if offset+size < len(all) {
		next = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(offset + size)))
	}
	return map[string]any{"configs": configs, "nextPageToken": next}, nil
}

// deletePushConfig answers DeleteTaskPushNotificationConfig
// (tasks/pushNotificationConfig/delete).
func (h *Handler) deletePushConfig(c *call) (any, error) {
	p, err := readPushParams(c.params)
	if err != nil {
		return nil, err
	}
	task, config := p.target(c.era)
	id, err := h.pushTask(c, task)
	if err != nil {
		return nil, err
	}
	if err := h.push.Configs.DeleteA2APushConfig(c.ctx, c.agent.OrgID, c.agent.ID, id, config); err != nil {
		return nil, configError(err, config)
	}
	if c.era == Version03 {
		return json.RawMessage("null"), nil
	}
	return map[string]any{}, nil
}

// sendPushConfig reads the configuration.pushNotificationConfig of a
// message, prepared to be set on the task the message begins; ok is false
// when it carries none.
func (h *Handler) sendPushConfig(c *call) (cfg store.A2APushConfig, ok bool, err error) {
	var p struct {
		Configuration *struct {
			Push *wirePushConfig `json:"pushNotificationConfig"`
		} `json:"configuration"`
	}
	if json.Unmarshal(c.params, &p) != nil || p.Configuration == nil || p.Configuration.Push == nil {
		return cfg, false, nil
	}
	if h.push == nil || c.agent.Card.Capabilities == nil || !c.agent.Card.Capabilities.Async {
		return cfg, false, jsonrpc.WithData(ErrPushNotSupported, map[string]string{"capability": "pushNotifications"})
	}
	cfg, err = h.preparePushConfig(c, *p.Configuration.Push, "params.configuration.pushNotificationConfig")
	return cfg, err == nil, err
}
