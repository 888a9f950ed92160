// Package redisfrontier is a storage.Frontier shared by crawler processes
// through Redis, with a global per-host politeness pacer (Pacer), in the
// manner of scrapy-redis's shared scheduler queue and colly's redisstorage.
//
// Items live in one hash (url → site, depth, referer, FIFO sequence), with
// a sorted set of pending URLs per site and one for all sites, scored by
// sequence. Every operation is one Lua script, so Redis runs it atomically:
// a URL is leased to one owner at a time. Leases name their owner (one per
// Frontier); a live owner refreshes a key with a time to live of
// leaseTimeout every heartbeatEvery, and a lease whose owner key has
// expired (the process died, even by kill -9) is pending again at the next
// Pop, in its original order.
//
// Push skips URLs whose page the store has decided (stored, duplicate or a
// permanent error), asking the store through the Pages interface, so the
// frontier never needs a copy of the decisions. The scripts build key names
// from a namespace: they need a standalone Redis (or one cluster slot), not
// a sharded cluster.
package redisfrontier

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsdedup/newscrawl/storage"
)

// Lease protocol, as in storage/postgres.
const (
	// leaseTimeout: an owner silent this long has its leases taken back.
	leaseTimeout = 30 * time.Second
	// heartbeatEvery: how often a live Frontier refreshes its owner key.
	heartbeatEvery = 5 * time.Second
)

// OpenTimeout bounds opening a client: the first round trip to a server
// that accepts connections but answers nothing fails after this long,
// whatever the client's retries.
const OpenTimeout = 10 * time.Second

// ParseURL parses a redis:// URL into client options with the timeouts
// every client of the project uses: go-redis's dial (5 s) and read/write
// (3 s) defaults unless the URL sets dial_timeout, read_timeout or
// write_timeout, and context deadlines honoured on every command, so that
// OpenTimeout and callers' deadlines bound a call including its retries.
// A parse error does not quote the URL (it may hold a password).
func ParseURL(url string) (*redis.Options, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot parse the redis url", storage.ErrInvalid)
	}
	opt.ContextTimeoutEnabled = true
	return opt, nil
}

// OpenError names a first round trip cut by OpenTimeout (rather than by
// the caller's ctx) as a server that did not answer.
func OpenError(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("no answer within %s: %w", OpenTimeout, err)
	}
	return err
}

// LeaseTimeout is how long after its owner's last heartbeat a lease is
// taken back (pending again at the next Pop).
const LeaseTimeout = leaseTimeout

// Pages is what the frontier needs of the store: the page record of a URL,
// or an error wrapping storage.ErrNotFound.
type Pages interface {
	PageOf(ctx context.Context, url string) (storage.Page, error)
}

// Frontier is the Redis storage.Frontier. It is safe for concurrent use by
// goroutines and by processes.
type Frontier struct {
	rdb   *redis.Client
	pages Pages
	ns    string // key namespace, ending in ':'
	owner string
	opt   options
	// started is when this owner registered, in microseconds on the
	// server's clock: the value of its owner key (fleetStart).
	started int64

	stopBeat context.CancelFunc
	beatDone chan struct{}
	closeMu  sync.Mutex
	closed   bool
}

var _ storage.Frontier = (*Frontier)(nil)

type options struct {
	leaseTimeout   time.Duration
	heartbeatEvery time.Duration
	afterWake      func() // tests: runs when Wait wakes (a stall there makes it late)
}

// Open connects to the Redis server at url (redis://host:port/db), checks
// it answers, and registers this Frontier as a lease owner. Keys are
// prefixed with namespace (e.g. "newscrawl:news:"), so that several corpora
// share one server; pages answers whether a URL is decided.
func Open(ctx context.Context, url, namespace string, pages Pages, opts ...Option) (*Frontier, error) {
	o := options{leaseTimeout: leaseTimeout, heartbeatEvery: heartbeatEvery}
	for _, fn := range opts {
		fn(&o)
	}
	return open(ctx, url, namespace, pages, o)
}

func open(ctx context.Context, url, namespace string, pages Pages, opt options) (*Frontier, error) {
	if pages == nil {
		return nil, fmt.Errorf("open redis frontier: %w: no page source", storage.ErrInvalid)
	}
	if namespace == "" || strings.ContainsAny(namespace, " \t\r\n") {
		return nil, fmt.Errorf("open redis frontier: %w: namespace %q", storage.ErrInvalid, namespace)
	}
	ropt, err := ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("open redis frontier: %w", err)
	}
	rdb := redis.NewClient(ropt)
	host, _ := os.Hostname() // informative only
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	f := &Frontier{rdb: rdb, pages: pages, ns: namespace, opt: opt,
		owner: fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(rnd[:]))}
	octx, cancel := context.WithTimeout(ctx, OpenTimeout)
	err = OpenError(ctx, f.register(octx))
	cancel()
	if err != nil {
		rdb.Close()
		return nil, fmt.Errorf("open redis frontier %s: %w", ropt.Addr, err)
	}
	beatCtx, stop := context.WithCancel(context.Background())
	f.stopBeat, f.beatDone = stop, make(chan struct{})
	go f.heartbeat(beatCtx)
	return f, nil
}

// Owner is this Frontier's lease owner id (host/pid/random).
func (f *Frontier) Owner() string { return f.owner }

// beat refreshes the owner key and lists the owner.
func (f *Frontier) beat(ctx context.Context) error {
	_, err := f.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, f.ns+"owner:"+f.owner, f.started, f.opt.leaseTimeout)
		p.SAdd(ctx, f.ns+"owners", f.owner)
		return nil
	})
	return err
}

func (f *Frontier) heartbeat(ctx context.Context) {
	defer close(f.beatDone)
	t := time.NewTicker(f.opt.heartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = f.beat(ctx) // a missed beat is retried at the next tick; leases survive several
		}
	}
}

// Close returns this Frontier's leases to the queue, removes its owner key
// and closes the connection.
func (f *Frontier) Close() error {
	f.closeMu.Lock()
	defer f.closeMu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	f.stopBeat()
	<-f.beatDone
	ctx := context.Background()
	_, err := requeueScript.Run(ctx, f.rdb, nil, f.ns, f.owner, "own").Result()
	_, err2 := f.rdb.Del(ctx, f.ns+"owner:"+f.owner).Result()
	_, err3 := f.rdb.SRem(ctx, f.ns+"owners", f.owner).Result()
	if err := errors.Join(err, err2, err3, f.rdb.Close()); err != nil {
		return fmt.Errorf("close redis frontier: %w", err)
	}
	return nil
}

// Item fields in the items hash: seq, site, depth, referer joined by
// fieldSep (which URLs, site names and referers never hold: Push rejects it).
const fieldSep = "\x1f"

// common is the Lua shared by the scripts: key names and the reclaim of
// leases whose owner key has expired.
const common = `
local ns = ARGV[1]
local function k(name) return ns .. name end
local function split(v)
	local out = {}
	for part in string.gmatch(v .. '\31', '([^\31]*)\31') do out[#out + 1] = part end
	return out
end
local function enqueue(url)
	local v = redis.call('HGET', k('items'), url)
	local f = split(v)
	redis.call('ZADD', k('pending'), tonumber(f[1]), url)
	redis.call('ZADD', k('pending:') .. f[2], tonumber(f[1]), url)
	redis.call('SREM', k('inflight:') .. f[2], url)
	redis.call('HDEL', k('leases'), url)
end
-- reclaim(mode): return leases to the queue. mode 'dead': of owners whose
-- key expired; 'own': also of owner ARGV[2]. Returns how many.
local function reclaim(mode)
	local n = 0
	local leases = redis.call('HGETALL', k('leases'))
	local alive = {}
	for i = 1, #leases, 2 do
		local url, owner = leases[i], leases[i + 1]
		local live = alive[owner]
		if live == nil then
			live = redis.call('EXISTS', k('owner:') .. owner) == 1
			alive[owner] = live
		end
		if (mode == 'own' and owner == ARGV[2]) or (not live and owner ~= ARGV[2]) then
			enqueue(url)
			n = n + 1
		end
	end
	return n
end
`

// pushScript: ARGV = ns, then url, site, depth, referer per item.
var pushScript = redis.NewScript(common + `
local added = 0
for i = 2, #ARGV, 4 do
	local url, site = ARGV[i], ARGV[i + 1]
	if redis.call('HEXISTS', k('items'), url) == 0 then
		local seq = redis.call('INCR', k('seq'))
		redis.call('HSET', k('items'), url, seq .. '\31' .. site .. '\31' .. ARGV[i + 2] .. '\31' .. ARGV[i + 3])
		redis.call('ZADD', k('pending'), seq, url)
		redis.call('ZADD', k('pending:') .. site, seq, url)
		added = added + 1
	elseif redis.call('ZSCORE', k('pending'), url) then
		-- a shorter path to a pending URL lowers its depth
		local f = split(redis.call('HGET', k('items'), url))
		if tonumber(ARGV[i + 2]) < tonumber(f[3]) then
			redis.call('HSET', k('items'), url, f[1] .. '\31' .. f[2] .. '\31' .. ARGV[i + 2] .. '\31' .. ARGV[i + 3])
		end
	end
end
return added
`)

// popScript: ARGV = ns, owner, site (” for all), n. Returns url, item
// fields for each leased item, oldest first.
var popScript = redis.NewScript(common + `
reclaim('dead')
local set = k('pending')
if ARGV[3] ~= '' then set = k('pending:') .. ARGV[3] end
local urls = redis.call('ZRANGE', set, 0, tonumber(ARGV[4]) - 1)
local out = {}
for _, url in ipairs(urls) do
	local v = redis.call('HGET', k('items'), url)
	local f = split(v)
	redis.call('ZREM', k('pending'), url)
	redis.call('ZREM', k('pending:') .. f[2], url)
	redis.call('SADD', k('inflight:') .. f[2], url)
	redis.call('HSET', k('leases'), url, ARGV[2])
	out[#out + 1] = url
	out[#out + 1] = v
end
return out
`)

// doneScript: ARGV = ns, url.
var doneScript = redis.NewScript(common + `
local url = ARGV[2]
local v = redis.call('HGET', k('items'), url)
if not v then return 0 end
local f = split(v)
redis.call('ZREM', k('pending'), url)
redis.call('ZREM', k('pending:') .. f[2], url)
redis.call('SREM', k('inflight:') .. f[2], url)
redis.call('HDEL', k('leases'), url)
redis.call('HDEL', k('items'), url)
return 1
`)

// requeueScript: ARGV = ns, owner, mode ('own': this owner's and dead
// owners' leases; 'dead': dead owners' only). Also forgets dead owners.
var requeueScript = redis.NewScript(common + `
local n = reclaim(ARGV[3])
for _, owner in ipairs(redis.call('SMEMBERS', k('owners'))) do
	if redis.call('EXISTS', k('owner:') .. owner) == 0 then redis.call('SREM', k('owners'), owner) end
end
return n
`)

// resetScript: ARGV = ns, owner. Forgets items leased by this owner or by
// dead owners, and pending items when no other live owner exists.
var resetScript = redis.NewScript(common + `
local others = false
for _, owner in ipairs(redis.call('SMEMBERS', k('owners'))) do
	if owner ~= ARGV[2] and redis.call('EXISTS', k('owner:') .. owner) == 1 then others = true end
end
local leases = redis.call('HGETALL', k('leases'))
local forget = {}
for i = 1, #leases, 2 do
	local url, owner = leases[i], leases[i + 1]
	if owner == ARGV[2] or redis.call('EXISTS', k('owner:') .. owner) == 0 then forget[#forget + 1] = url end
end
if not others then
	for _, url in ipairs(redis.call('ZRANGE', k('pending'), 0, -1)) do forget[#forget + 1] = url end
end
for _, url in ipairs(forget) do
	local f = split(redis.call('HGET', k('items'), url))
	redis.call('ZREM', k('pending'), url)
	redis.call('ZREM', k('pending:') .. f[2], url)
	redis.call('SREM', k('inflight:') .. f[2], url)
	redis.call('HDEL', k('leases'), url)
	redis.call('HDEL', k('items'), url)
end
return #forget
`)

// pendingScript: ARGV = ns, site.
var pendingScript = redis.NewScript(common + `
if ARGV[2] == '' then return redis.call('HLEN', k('items')) end
return redis.call('ZCARD', k('pending:') .. ARGV[2]) + redis.call('SCARD', k('inflight:') .. ARGV[2])
`)

// decided reports whether Push must skip url: its page is final or a
// permanent error not due again (storage.Page.Skipped), or was fetched
// since the fleet's run began (since, microseconds; 0: unknown).
func (f *Frontier) decided(ctx context.Context, url string, since int64) (bool, error) {
	p, err := f.pages.PageOf(ctx, url)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if since > 0 && !p.FetchedAt.IsZero() && p.FetchedAt.UnixMicro() >= since {
		return true, nil
	}
	return p.Skipped(time.Now()), nil
}

// Push queues the items that are neither queued nor decided nor fetched
// since the fleet's run began (fleetStart) and returns how many it added. The decided check reads the store before the (atomic)
// queueing: a URL decided in between is queued once more and its commit
// then reports ErrAlreadyDecided, so nothing is stored twice.
func (f *Frontier) Push(ctx context.Context, items []storage.FrontierItem) (int, error) {
	for _, it := range items {
		if it.URL == "" {
			return 0, fmt.Errorf("push: %w: frontier item with empty url", storage.ErrInvalid)
		}
		if strings.Contains(it.URL+it.Site+it.Referer, fieldSep) {
			return 0, fmt.Errorf("push: %w: frontier item %q holds a \\x1f byte", storage.ErrInvalid, it.URL)
		}
		if it.Depth < 0 || it.Depth > math.MaxInt32 {
			return 0, fmt.Errorf("push: %w: frontier item %s has depth %d", storage.ErrInvalid, it.URL, it.Depth)
		}
	}
	if len(items) == 0 {
		return 0, nil
	}
	args := []any{f.ns}
	since, err := f.fleetStart(ctx)
	if err != nil {
		return 0, fmt.Errorf("push: %w", err)
	}
	for _, it := range items {
		d, err := f.decided(ctx, it.URL, since)
		if err != nil {
			return 0, fmt.Errorf("push: %w", err)
		}
		if !d {
			args = append(args, it.URL, it.Site, strconv.Itoa(it.Depth), it.Referer)
		}
	}
	if len(args) == 1 {
		return 0, nil
	}
	n, err := pushScript.Run(ctx, f.rdb, nil, args...).Int()
	if err != nil {
		return 0, fmt.Errorf("push: %w", err)
	}
	return n, nil
}

// Pop leases up to n pending items of site (all sites when empty), oldest
// first, after returning expired leases to the queue.
func (f *Frontier) Pop(ctx context.Context, site string, n int) ([]storage.FrontierItem, error) {
	if n <= 0 {
		return nil, nil
	}
	res, err := popScript.Run(ctx, f.rdb, nil, f.ns, f.owner, site, n).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("pop: %w", err)
	}
	out := make([]storage.FrontierItem, 0, len(res)/2)
	for i := 0; i+1 < len(res); i += 2 {
		fields := strings.Split(res[i+1], fieldSep)
		if len(fields) != 4 {
			return nil, fmt.Errorf("pop: item %s is malformed: %q", res[i], res[i+1])
		}
		depth, err := strconv.Atoi(fields[2])
		if err != nil {
			return nil, fmt.Errorf("pop: item %s has depth %q", res[i], fields[2])
		}
		out = append(out, storage.FrontierItem{URL: res[i], Site: fields[1], Depth: depth, Referer: fields[3]})
	}
	return out, nil
}

// Done removes url from the frontier (no-op when absent).
func (f *Frontier) Done(ctx context.Context, url string) error {
	if err := doneScript.Run(ctx, f.rdb, nil, f.ns, url).Err(); err != nil {
		return fmt.Errorf("done %s: %w", url, err)
	}
	return nil
}

// Requeue makes pending again the items leased by this Frontier or by dead
// owners; live processes keep their leases.
func (f *Frontier) Requeue(ctx context.Context) (int, error) {
	n, err := requeueScript.Run(ctx, f.rdb, nil, f.ns, f.owner, "own").Int()
	if err != nil {
		return 0, fmt.Errorf("requeue: %w", err)
	}
	return n, nil
}

// Pending counts queued items (pending or in flight) of site (all when empty).
func (f *Frontier) Pending(ctx context.Context, site string) (int, error) {
	n, err := pendingScript.Run(ctx, f.rdb, nil, f.ns, site).Int()
	if err != nil {
		return 0, fmt.Errorf("pending: %w", err)
	}
	return n, nil
}

// Reset forgets the items that are no other live process's work (see
// storage/postgres's Reset).
func (f *Frontier) Reset(ctx context.Context) error {
	if err := resetScript.Run(ctx, f.rdb, nil, f.ns, f.owner).Err(); err != nil {
		return fmt.Errorf("reset frontier: %w", err)
	}
	return nil
}

// paceScript: KEYS[1] = the host's key (the earliest start of its next
// request, microseconds on the server's clock); ARGV = delay in
// microseconds. Claims the host for a request starting now when its next
// start has come, setting the next to now + delay; otherwise claims
// nothing. Returns the microseconds to wait (0: claimed) and the current
// time.
var paceScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local next = tonumber(redis.call('GET', KEYS[1]) or '0')
if next > now then
	return {string.format('%.0f', next - now), string.format('%.0f', now)}
end
local delay = tonumber(ARGV[1])
redis.call('SET', KEYS[1], string.format('%.0f', now + delay), 'PX', math.floor(delay / 1000) + 60000)
return {'0', string.format('%.0f', now)}
`)

// claim claims host for a request starting now, when the host's next
// start has come (wait 0; the next start is then now + delay), and
// otherwise returns how long to wait before claiming again; now is the
// server's clock (microseconds since the epoch).
func (f *Frontier) claim(ctx context.Context, host string, delay time.Duration) (wait time.Duration, now int64, err error) {
	if delay < 0 {
		return 0, 0, fmt.Errorf("pace %s: %w: negative delay %v", host, storage.ErrInvalid, delay)
	}
	res, err := paceScript.Run(ctx, f.rdb, []string{f.ns + "host:" + host}, delay.Microseconds()).StringSlice()
	if err != nil {
		return 0, 0, fmt.Errorf("pace %s: %w", host, err)
	}
	if len(res) != 2 {
		return 0, 0, fmt.Errorf("pace %s: reply %q", host, res)
	}
	w, err := strconv.ParseInt(res[0], 10, 64)
	if err == nil {
		now, err = strconv.ParseInt(res[1], 10, 64)
	}
	if err != nil || w < 0 {
		return 0, 0, fmt.Errorf("pace %s: reply %q: %w", host, res, err)
	}
	return time.Duration(w) * time.Microsecond, now, nil
}

// Wait blocks until a request to host may start and claims that start:
// request starts to one host are at least delay apart across every process
// sharing the server (global politeness, Crawl-delay included when the
// caller passes it as delay), on the server's clock. The claim is made
// when the request is about to start, not booked ahead: a process that
// wakes late (descheduled on a loaded machine) claims then, so its request
// never lands closer than the delay to another process's. The gap seen by
// the host is the delay less the variation of the time between a claim's
// reply and the request's arrival. It returns early with ctx's error.
func (f *Frontier) Wait(ctx context.Context, host string, delay time.Duration) error {
	_, err := f.waitAt(ctx, host, delay)
	return err
}

// waitAt is Wait, returning the server's time of the claim (microseconds).
func (f *Frontier) waitAt(ctx context.Context, host string, delay time.Duration) (int64, error) {
	for {
		wait, now, err := f.claim(ctx, host, delay)
		if err != nil {
			return 0, err
		}
		if wait == 0 {
			return now, ctx.Err()
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		}
		if f.opt.afterWake != nil {
			f.opt.afterWake()
		}
	}
}

// holdScript: KEYS[1] = the host's key; ARGV = hold in microseconds. Moves
// the host's next request start to at least now + hold (server clock).
var holdScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local start = math.max(now + tonumber(ARGV[1]), tonumber(redis.call('GET', KEYS[1]) or '0'))
redis.call('SET', KEYS[1], string.format('%.0f', start), 'PX', math.floor((start - now) / 1000) + 60000)
return 1
`)

// Hold makes every later request to host, by any process, start at least
// d from now (Retry-After, a Crawl-delay learned from robots.txt); a
// reservation already later is kept. d <= 0 changes nothing.
func (f *Frontier) Hold(ctx context.Context, host string, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if err := holdScript.Run(ctx, f.rdb, []string{f.ns + "host:" + host}, d.Microseconds()).Err(); err != nil {
		return fmt.Errorf("hold %s: %w", host, err)
	}
	return nil
}

// Shared values (Once).
const (
	// onceLockTTL bounds how long a fetch holds the lock of a key; a holder
	// whose owner key expired (it died) loses it at once.
	onceLockTTL = 5 * time.Minute
	// oncePoll is how often a caller waiting for another's fetch looks.
	oncePoll = 50 * time.Millisecond
)

// Once returns the value cached under key; when there is none, one caller
// among all processes (the holder of the key's lock) runs fetch and caches
// its value for the time to live fetch returns, and the others wait for
// it. A fetch error is returned to its caller, nothing is cached and the
// lock is released, so the next caller fetches; the lock of a holder that
// died is broken as soon as its owner key expires.
func (f *Frontier) Once(ctx context.Context, key string, fetch func(context.Context) ([]byte, time.Duration, error)) ([]byte, error) {
	vk := f.ns + "once:" + key
	lk := vk + ":lock"
	for {
		// One script: the value, or the lock, or neither, seen together
		// (a GET then a SETNX would take the lock just released by a
		// holder that has cached the value, and fetch again).
		res, err := onceScript.Run(ctx, f.rdb, []string{vk, lk}, f.owner, onceLockTTL.Milliseconds()).Slice()
		if err != nil {
			return nil, fmt.Errorf("shared %s: %w", key, err)
		}
		if len(res) == 2 {
			if v, ok := res[1].(string); ok {
				return []byte(v), nil
			}
			return nil, fmt.Errorf("shared %s: reply %v", key, res)
		}
		if len(res) == 1 && res[0] == int64(1) {
			return f.fill(ctx, key, vk, lk, fetch)
		}
		if err := f.breakDeadLock(ctx, lk); err != nil {
			return nil, fmt.Errorf("shared %s: %w", key, err)
		}
		t := time.NewTimer(oncePoll)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
}

// fill runs fetch as the holder of lk and caches its value under vk.
func (f *Frontier) fill(ctx context.Context, key, vk, lk string, fetch func(context.Context) ([]byte, time.Duration, error)) ([]byte, error) {
	bg := context.WithoutCancel(ctx)
	v, ttl, err := fetch(ctx)
	if err != nil {
		f.rdb.Del(bg, lk)
		return nil, err
	}
	if ttl <= 0 {
		f.rdb.Del(bg, lk)
		return nil, fmt.Errorf("shared %s: %w: time to live %v", key, storage.ErrInvalid, ttl)
	}
	_, err = f.rdb.TxPipelined(bg, func(p redis.Pipeliner) error {
		p.Set(bg, vk, v, ttl)
		p.Del(bg, lk)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("shared %s: %w", key, err)
	}
	return v, nil
}

// onceScript: KEYS = value key, lock key; ARGV = owner, lock ttl in ms.
// Returns {1, value} when the value is cached, {1} when the caller took
// the lock, {0} when another holds it.
var onceScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return {1, v} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {1} end
return {0}
`)

// breakDeadLock deletes the lock lk when its holder's owner key expired.
var breakLockScript = redis.NewScript(`
local holder = redis.call('GET', KEYS[1])
if holder and redis.call('EXISTS', ARGV[1] .. 'owner:' .. holder) == 0 then
	redis.call('DEL', KEYS[1])
	return 1
end
return 0
`)

func (f *Frontier) breakDeadLock(ctx context.Context, lk string) error {
	return breakLockScript.Run(ctx, f.rdb, []string{lk}, f.ns).Err()
}
