package redisindex

import "github.com/redis/go-redis/v9"

// The scripts run atomically on the server: a reader never sees an entry
// half added or half removed, nor a merge half applied. Keys are built in
// the scripts from the prefix (ARGV[1]), so the index needs one Redis
// server, not a cluster.

// addScript: ARGV prefix, id, cluster, record, empty-text hash ("" when
// the entry has tokens), head class, head list cap, then counted lists:
// band keys, head tokens, distinct spots. Returns 1 when added, 0 when the
// id was already indexed.
var addScript = redis.NewScript(`
local p, id = ARGV[1], ARGV[2]
local ek = p .. 'e:' .. id
if redis.call('EXISTS', ek) == 1 then return 0 end
redis.call('HSET', ek, 'd', ARGV[4], 'c', ARGV[3])
redis.call('INCR', p .. 'n')
local cls, cap = ARGV[6], tonumber(ARGV[7])
local i = 8
local nb = tonumber(ARGV[i]); i = i + 1
for j = 1, nb do redis.call('SADD', p .. 'b:' .. ARGV[i], id); i = i + 1 end
local nh = tonumber(ARGV[i]); i = i + 1
for j = 1, nh do
  local k = p .. 'h:' .. ARGV[i] .. ':' .. cls
  redis.call('LPUSH', k, id)
  redis.call('LTRIM', k, 0, cap - 1)
  i = i + 1
end
if nh > 0 then redis.call('HINCRBY', p .. 'cls', cls, 1) end
local ns = tonumber(ARGV[i]); i = i + 1
for j = 1, ns do redis.call('HINCRBY', p .. 'df', ARGV[i], 1); i = i + 1 end
if ARGV[5] ~= '' then redis.call('SETNX', p .. 'x:' .. ARGV[5], id) end
return 1
`)

// removeScript: ARGV prefix, id, empty-text hash, band keys. Returns 1
// when removed. Head lists keep the id: readers skip ids without a record.
var removeScript = redis.NewScript(`
local p, id = ARGV[1], ARGV[2]
local ek = p .. 'e:' .. id
if redis.call('DEL', ek) == 0 then return 0 end
redis.call('DECR', p .. 'n')
for j = 4, #ARGV do redis.call('SREM', p .. 'b:' .. ARGV[j], id) end
if ARGV[3] ~= '' and redis.call('GET', p .. 'x:' .. ARGV[3]) == id then redis.call('DEL', p .. 'x:' .. ARGV[3]) end
return 1
`)

// candidatesScript: ARGV prefix, empty-text hash, then counted lists:
// band keys, head classes, head tokens. Returns {ids met through the
// bands, ids of the head lists read (with repeats), records: id, record,
// current cluster, ...} for every id met that is still indexed.
var candidatesScript = redis.NewScript(`
local p = ARGV[1]
local i = 3
local nb = tonumber(ARGV[i]); i = i + 1
local bk = {}
for j = 1, nb do bk[j] = p .. 'b:' .. ARGV[i]; i = i + 1 end
local lsh = {}
if nb > 0 then lsh = redis.call('SUNION', unpack(bk)) end
local nc = tonumber(ARGV[i]); i = i + 1
local classes = {}
for j = 1, nc do
  if redis.call('HEXISTS', p .. 'cls', ARGV[i]) == 1 then classes[#classes + 1] = ARGV[i] end
  i = i + 1
end
local nt = tonumber(ARGV[i]); i = i + 1
local head = {}
if #classes > 0 then
  for j = 1, nt do
    for _, c in ipairs(classes) do
      for _, v in ipairs(redis.call('LRANGE', p .. 'h:' .. ARGV[i] .. ':' .. c, 0, -1)) do head[#head + 1] = v end
    end
    i = i + 1
  end
end
local ids = {}
for _, v in ipairs(lsh) do ids[v] = true end
for _, v in ipairs(head) do ids[v] = true end
if ARGV[2] ~= '' then
  local x = redis.call('GET', p .. 'x:' .. ARGV[2])
  if x then ids[x] = true end
end
local recs = {}
for id in pairs(ids) do
  local r = redis.call('HMGET', p .. 'e:' .. id, 'd', 'c')
  if r[1] then
    recs[#recs + 1] = id
    recs[#recs + 1] = r[1]
    recs[#recs + 1] = redis.call('HGET', p .. 'm', r[2]) or r[2]
  end
end
return {lsh, head, recs}
`)

// mergeScript: ARGV prefix, into, from... (dedup.ClusterMerges.Merge: the
// map points every merged cluster directly at the survivor; a:C lists the
// clusters merged into C).
var mergeScript = redis.NewScript(`
local p = ARGV[1]
local function of(c) return redis.call('HGET', p .. 'm', c) or c end
local into = of(ARGV[2])
for j = 3, #ARGV do
  local f = of(ARGV[j])
  if f ~= into then
    local moved = redis.call('SMEMBERS', p .. 'a:' .. f)
    moved[#moved + 1] = f
    redis.call('DEL', p .. 'a:' .. f)
    for _, m in ipairs(moved) do
      redis.call('HSET', p .. 'm', m, into)
      redis.call('SADD', p .. 'a:' .. into, m)
    end
  end
end
return 1
`)
