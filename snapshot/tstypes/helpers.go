package tstypes

// helpers are the generic types frontends name rows, writes and enums by
// (Tables<"books">, TablesInsert<{ schema: "api" }, "books">,
// Enums<"mood">), with the signatures Supabase's generator gives them,
// so code written against its module compiles against this one. A bare
// name is looked up in the default schema: the first of the schemas
// written, as svc-serve's default schema is the first of db-schemas.
const helpers = `type SchemaName = keyof Database
type InSchema = { schema: SchemaName }
type SchemaOf<O> = O extends InSchema ? O["schema"] : DefaultSchema
type NameOf<O, N> = O extends InSchema ? N : O
type Relations<S extends SchemaName> = Database[S]["Tables"] & Database[S]["Views"]
type Section<S extends SchemaName, K extends "Tables" | "Enums" | "CompositeTypes"> = Database[S][K]
type Lookup<T, N> = N extends keyof T ? T[N] : never

/** The row of a table or view: Tables<"books">, Tables<{ schema: "api" }, "books">. */
export type Tables<
  O extends keyof Relations<DefaultSchema> | InSchema,
  N extends O extends InSchema ? keyof Relations<O["schema"]> : never = never,
> = Lookup<Relations<SchemaOf<O>>, NameOf<O, N>> extends { Row: infer R } ? R : never

/** What an insert into a table takes. */
export type TablesInsert<
  O extends keyof Section<DefaultSchema, "Tables"> | InSchema,
  N extends O extends InSchema ? keyof Section<O["schema"], "Tables"> : never = never,
> = Lookup<Section<SchemaOf<O>, "Tables">, NameOf<O, N>> extends { Insert: infer I } ? I : never

/** What an update of a table takes. */
export type TablesUpdate<
  O extends keyof Section<DefaultSchema, "Tables"> | InSchema,
  N extends O extends InSchema ? keyof Section<O["schema"], "Tables"> : never = never,
> = Lookup<Section<SchemaOf<O>, "Tables">, NameOf<O, N>> extends { Update: infer U } ? U : never

/** An enum's labels. */
export type Enums<
  O extends keyof Section<DefaultSchema, "Enums"> | InSchema,
  N extends O extends InSchema ? keyof Section<O["schema"], "Enums"> : never = never,
> = Lookup<Section<SchemaOf<O>, "Enums">, NameOf<O, N>>

/** A composite type's attributes. */
export type CompositeTypes<
  O extends keyof Section<DefaultSchema, "CompositeTypes"> | InSchema,
  N extends O extends InSchema ? keyof Section<O["schema"], "CompositeTypes"> : never = never,
> = Lookup<Section<SchemaOf<O>, "CompositeTypes">, NameOf<O, N>>
`
