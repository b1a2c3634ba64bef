export * from "./invitations.js";
export * from "./membership-double.js";
