import { createContext, useContext } from "react";
import type { ApiClient } from "./api/client.ts";
import type { Session } from "./api/session.ts";

export interface Services {
  api: ApiClient;
  session: Session;
}

export const ServicesContext = createContext<Services | undefined>(undefined);

export function useServices(): Services {
  const services = useContext(ServicesContext);
  if (!services) throw new Error("useServices outside the app");
  return services;
}
