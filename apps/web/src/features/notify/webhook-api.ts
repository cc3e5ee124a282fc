import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";

export type Webhook = components["schemas"]["Webhook"];
export type WebhookInput = components["schemas"]["WebhookInput"];
export type WebhookDelivery = components["schemas"]["WebhookDelivery"];
export type WebhookEvent = WebhookInput["events"][number];

/** The events a person may subscribe to, with what each means. */
export const EVENT_CHOICES: ReadonlyArray<{ type: WebhookEvent; label: string }> = [
  { type: "run.waiting", label: "run.waiting — a run waits at a gate" },
  { type: "run.failed", label: "run.failed — a run failed" },
  { type: "run.finished", label: "run.finished — a run ended (succeeded, failed or was cancelled)" },
  { type: "job.finished", label: "job.finished — a file job (analyze, apply) ended" },
  { type: "task.finished", label: "task.finished — an automation task ended" },
];

/** How often a hook's deliveries are refreshed while one is pending. */
const PENDING_POLL_MS = 1_000;

export function useWebhooks() {
  return useQuery({
    queryKey: ["webhooks"],
    queryFn: () => unwrap(api.GET("/api/webhooks", { params: { query: { limit: 100 } } })),
  });
}

/** A hook's newest deliveries; refreshed every second while one of them is still pending. */
export function useDeliveries(webhookId: string) {
  return useQuery({
    queryKey: ["webhook-deliveries", webhookId],
    queryFn: () =>
      unwrap(
        api.GET("/api/webhooks/{webhook_id}/deliveries", {
          params: { path: { webhook_id: webhookId }, query: { limit: 10 } },
        }),
      ),
    refetchInterval: (q) =>
      q.state.data?.items.some((d) => d.status === "pending") === true ? PENDING_POLL_MS : false,
  });
}

export function useCreateWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: WebhookInput) => unwrap(api.POST("/api/webhooks", { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["webhooks"] }),
  });
}

export function useDeleteWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (webhookId: string) => {
      const { response, error } = await api.DELETE("/api/webhooks/{webhook_id}", {
        params: { path: { webhook_id: webhookId } },
      });
      if (!response.ok) await unwrap(Promise.resolve({ error, response }));
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["webhooks"] }),
  });
}

/** `POST /api/webhooks/{id}/test`, then `POST …/redeliver`: both queue a delivery and refresh the list. */
export function useSendTest(webhookId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      unwrap(api.POST("/api/webhooks/{webhook_id}/test", { params: { path: { webhook_id: webhookId } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["webhook-deliveries", webhookId] }),
  });
}

export function useRedeliver(webhookId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      unwrap(
        api.POST("/api/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver", {
          params: { path: { webhook_id: webhookId, delivery_id: deliveryId } },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["webhook-deliveries", webhookId] }),
  });
}
