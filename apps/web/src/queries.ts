import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { ApiError } from "./api/client.js";

const unauthorizedListeners = new Set<() => void>();

/** Calls `listener` whenever a query or mutation is answered 401 `UNAUTHORIZED`. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => {
    unauthorizedListeners.delete(listener);
  };
}

function notify(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) {
    for (const listener of unauthorizedListeners) listener();
  }
}

/** The one query client: no retry on 4xx, 401s open the token prompt. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: notify }),
    mutationCache: new MutationCache({ onError: notify }),
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      },
    },
  });
}

/** The console's one query client, shared by the React tree and the routes' loaders. */
export const queryClient = createQueryClient();
