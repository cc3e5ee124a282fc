import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { api, unwrap } from "../../api/client.js";
import { EmptyState, ErrorState, Loading } from "../../ui/states.js";
import { StartRunForm } from "./StartRunForm.js";

/** `/templates`: the templates (read view) with a link to start each. */
export function TemplatesPage() {
  const templates = useQuery({
    queryKey: ["templates"],
    queryFn: () => unwrap(api.GET("/api/templates", {})),
  });
  return (
    <section>
      <h1>Templates</h1>
      {templates.isPending ? <Loading what="templates" /> : null}
      {templates.isError ? <ErrorState error={templates.error} /> : null}
      {templates.data?.items.length === 0 ? <EmptyState title="No templates yet" /> : null}
      <ul>
        {templates.data?.items.map((t) => (
          <li key={t.id}>
            <Link to="/templates/$templateId" params={{ templateId: t.id }}>
              {t.name}
            </Link>{" "}
            <span className="muted">{t.params_schema.length} params</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** `/templates/$templateId`: a template and its params form to start a run. */
export function TemplatePage() {
  const { templateId } = useParams({ from: "/templates/$templateId" });
  const template = useQuery({
    queryKey: ["template", templateId],
    queryFn: () =>
      unwrap(api.GET("/api/templates/{template_id}", { params: { path: { template_id: templateId } } })),
  });
  if (template.isPending) return <Loading what="the template" />;
  if (template.isError) return <ErrorState error={template.error} />;
  return (
    <section>
      <p>
        <Link to="/templates">← Templates</Link>
      </p>
      <h1>{template.data.name}</h1>
      <p className="muted">
        Flow{" "}
        <Link to="/flows/$flowId" params={{ flowId: template.data.flow_id }}>
          {template.data.flow_id}
        </Link>
      </p>
      <h2>Start a run</h2>
      <StartRunForm
        origin={{ template_id: template.data.id }}
        specs={template.data.params_schema}
        defaults={template.data.defaults}
      />
    </section>
  );
}
