/** Postgres on pg: `Sql`, migrations, the mapping of its errors: `@docex/kit/db`. */
export * from "./database.js";
export * from "./errors.js";
export * from "./sql.js";
