// The client under test, as an application would build it, aimed at the
// SVC server the Go test (server/postgrestjs_test.go) started:
//   SVC_URL   its base URL
//   SVC_MODE  "postgrest" (compat-names = postgrest: the client as
//             published) or "svc" (SVC's names: a fetch wrapper maps the
//             client's vnd.pgrst media types to vnd.svc on the wire)
import { PostgrestClient } from '@supabase/postgrest-js'

export const url = process.env.SVC_URL
export const mode = process.env.SVC_MODE ?? 'postgrest'
if (!url) throw new Error('SVC_URL is not set: run the suite through go test ./server -run TestPostgrestJS')

// code is an SVC error code in the server's naming: code('116').
export const code = (n) => (mode === 'postgrest' ? 'PGRST' : 'SVC') + n

// raiseState is the SQLSTATE a function raises for a custom error.
export const raiseState = mode === 'postgrest' ? 'PGRST' : 'SVC00'

// svcFetch rewrites the client's vendor media types to SVC's. Only the
// wire changes: the client still sees the headers it set, so it reads the
// answers exactly as it reads PostgREST's.
export function svcFetch(input, init = {}) {
  const headers = new Headers(init.headers)
  for (const name of ['Accept', 'Content-Type']) {
    const value = headers.get(name)
    if (value) headers.set(name, value.replaceAll('vnd.pgrst.', 'vnd.svc.'))
  }
  return fetch(input, { ...init, headers })
}

// sent records the Accept header of every request, for the tests that
// show what the client asked for.
export const sent = []
function recordingFetch(input, init = {}) {
  sent.push(new Headers(init.headers).get('Accept'))
  return (mode === 'svc' ? svcFetch : fetch)(input, init)
}

// client reads schema test (the first of db-schemas); js is its own
// schema for writes, selected with Accept-Profile and Content-Profile.
export const client = new PostgrestClient(url, { fetch: recordingFetch })
export const js = new PostgrestClient(url, { schema: 'js', fetch: recordingFetch })
