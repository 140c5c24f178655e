// Error objects, explain() and abortSignal.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { client, js, code, raiseState, sent, mode, url } from './client.js'

test('a raised exception: code, message, details, hint', async () => {
  const { data, error, status } = await client.rpc('fail_plain')
  assert.equal(data, null)
  assert.equal(status, 400)
  assert.deepEqual(error, { code: 'P0001', message: 'nope', details: 'd', hint: 'h' })
})

test("a custom error raised with the naming's SQLSTATE", async () => {
  const { error, status } = await js.rpc('raise_custom', { state: raiseState })
  assert.equal(status, 402)
  assert.deepEqual(error, { code: 'CART1', message: 'Cart is empty', details: 'nothing to pay', hint: 'add an item' })
})

test('service errors carry the naming prefix', async () => {
  const embed = await client.from('books').select('title, nowhere(name)')
  assert.equal(embed.status, 400)
  assert.equal(embed.error.code, code('200'))
  assert.equal(typeof embed.error.message, 'string')
  assert.ok('details' in embed.error && 'hint' in embed.error)

  const ambiguous = await client.from('orders').select('id, addresses(city)')
  assert.equal(ambiguous.status, 300)
  assert.equal(ambiguous.error.code, code('201'))
  assert.ok(Array.isArray(ambiguous.error.details))

  const missing = await client.from('no_such_table').select()
  assert.equal(missing.status, 404)
  assert.equal(missing.error.code, '42P01')

  const column = await client.from('books').select('nope')
  assert.equal(column.status, 400)
  assert.equal(column.error.code, '42703')
})

test('one relation embedded twice under one name: the error PostgreSQL gives PostgREST', async () => {
  const { data, error, status } = await js.from('todos').select('lists(id), lists(name)').limit(1).single()
  assert.equal(data, null)
  assert.equal(status, 400)
  assert.deepEqual(error, {
    code: '42712',
    details: null,
    hint: null,
    message: 'table name "todos_lists_1" specified more than once',
  })
})

test("an unknown column: PostgreSQL's error, suggesting a column only where PostgreSQL would", async () => {
  // sum is no column of todos, and none is near enough by PostgreSQL's rule
  const sum = await js.from('lists').select('name, todos(sum)').limit(1).single()
  assert.equal(sum.status, 400)
  assert.deepEqual(sum.error, { code: '42703', message: 'column todos_1.sum does not exist', details: null, hint: null })

  const typo = await js.from('todos').select('titel')
  assert.deepEqual(typo.error, {
    code: '42703',
    message: 'column todos.titel does not exist',
    details: null,
    hint: 'Perhaps you meant to reference the column "todos.title".',
  })
})

// postgrest-js's relationships-error-handling tests compare whole error
// bodies with PostgREST's, hint null: SVC's word on the snapshot goes in
// a header (SVC-Advice), never in the body (issue 56).
test("errors on names the snapshot lacks are PostgREST's bodies; SVC's advice is a header", async () => {
  const missing = await client.from('no_such_table').select()
  assert.equal(missing.status, 404)
  assert.deepEqual(missing.error, {
    code: '42P01',
    message: 'relation "test.no_such_table" does not exist',
    details: null,
    hint: null,
  })

  const aliasedAggregate = await client.from('books').select('total:nope.sum()')
  assert.equal(aliasedAggregate.status, 400)
  assert.deepEqual(aliasedAggregate.error, { code: '42703', message: 'column books.nope does not exist', details: null, hint: null })

  const castAggregate = await client.from('books').select('nope::text.count()')
  assert.equal(castAggregate.status, 400)
  assert.equal(castAggregate.error.hint, null)

  const bareSum = await client.from('books').select('sum()')
  assert.equal(bareSum.status, 400)
  assert.equal(bareSum.error.hint, null)

  const raw = await fetch(`${url}/no_such_table`)
  assert.match(raw.headers.get('svc-advice'), /^The schema snapshot in use \(fingerprint [0-9a-f]{12}, taken .*\) does not have it; if it was created since, reload the schema snapshot\.$/)
})

test('throwOnError() rejects with the error', async () => {
  await assert.rejects(
    async () => await client.rpc('fail_plain').throwOnError(),
    (err) => err.code === 'P0001' && err.hint === 'h',
  )
})

test('explain(): the plan as text and as JSON', async () => {
  const text = await client.from('books').select('title').eq('id', 1).explain()
  assert.equal(text.error, null)
  assert.equal(typeof text.data, 'string')
  assert.match(text.data, /Aggregate/)
  assert.match(sent.at(-1), /^application\/vnd\.pgrst\.plan\+text; for="application\/json"/)

  const json = await client.from('books').select('title').explain({ format: 'json', analyze: true, verbose: true })
  assert.equal(json.error, null)
  assert.equal(json.data[0].Plan['Node Type'], 'Aggregate')
  assert.ok('Actual Rows' in json.data[0].Plan)

  // The plan's settings are those PostgREST's shows: the search path,
  // nothing SVC sets to keep JIT from compiling (postgrest-js's
  // "explain with options").
  const options = await client.from('books').select('title').explain({ analyze: true, verbose: true, settings: true, buffers: true, wal: true, format: 'json' })
  assert.equal(options.error, null)
  assert.deepEqual(Object.keys(options.data[0].Settings), ['search_path'])

  const rpcPlan = await client.rpc('books_by', { author: 1 }).select('title').explain()
  assert.equal(rpcPlan.error, null)
  assert.match(rpcPlan.data, /^Aggregate/)

  // A write's plan, not run without analyze: nothing is inserted.
  const insertPlan = await js.from('lists').insert({ id: 9, name: 'plan' }).select().explain()
  assert.equal(insertPlan.error, null)
  assert.match(insertPlan.data, /Insert on lists/)
  const lists = await js.from('lists').select('id').eq('id', 9)
  assert.deepEqual(lists.data, [])
})

test('abortSignal(): a request given up mid-query', async () => {
  const controller = new AbortController()
  const started = Date.now()
  setTimeout(() => controller.abort(), 200)
  const { data, error, status } = await js.rpc('nap', { seconds: 5 }).abortSignal(controller.signal)
  assert.equal(data, null)
  assert.equal(status, 0)
  assert.match(error.message, /AbortError/)
  assert.ok(Date.now() - started < 4000, 'the client waited for the server')

  // The server is fine afterwards.
  const after = await js.rpc('nap', { seconds: 0 })
  assert.deepEqual([after.data, after.error], [1, null])
})

test('an Accept header SVC cannot answer: 415', async () => {
  const { error, status } = await client.from('books').select('id').setHeader('Accept', 'application/xml')
  assert.equal(status, 415)
  assert.equal(error.code, code('107'))
})

test("the server's vendor media types, and why svc mode needs svcFetch", async () => {
  const [own, other] = mode === 'postgrest' ? ['pgrst', 'svc'] : ['svc', 'pgrst']
  const ok = await fetch(`${url}/books?select=title&id=eq.1`, { headers: { Accept: `application/vnd.${own}.object+json` } })
  assert.equal(ok.status, 200)
  assert.equal(ok.headers.get('content-type'), `application/vnd.${own}.object+json; charset=utf-8`)
  assert.deepEqual(await ok.json(), { title: 'Dune' })
  const refused = await fetch(`${url}/books?id=eq.1`, { headers: { Accept: `application/vnd.${other}.object+json` } })
  assert.equal(refused.status, 415)
  // The body is PostgREST's, hint null; the advice header names the
  // setting that would answer the other naming's types.
  const { hint } = await refused.json()
  assert.equal(hint, null)
  assert.match(refused.headers.get('svc-advice'), new RegExp(`^application/vnd\\.${other}\\.\\* are the media types of compat-names = ${other === 'pgrst' ? 'postgrest' : 'svc'},`))
})
