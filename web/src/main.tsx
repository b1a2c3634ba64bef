import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createApiClient } from "./api/client.ts";
import { Session } from "./api/session.ts";
import { App } from "./app.tsx";
import "./styles.css";

const session = new Session();
const api = createApiClient(session);
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App services={{ api, session }} />
  </StrictMode>,
);
