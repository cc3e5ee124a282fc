import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { api, unwrap } from "../../api/client.js";
import { ErrorState } from "../../ui/states.js";
import { previewNamingTemplate } from "./model/naming-preview.js";

/** Starts an analyze: folder, output folder, strategy pack, naming template with a live preview. */
export function AnalyzeForm() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const packs = useQuery({
    queryKey: ["fileorg", "packs"],
    queryFn: () => unwrap(api.GET("/api/preferences/strategy-packs", {})),
  });
  const [source, setSource] = useState("");
  const [output, setOutput] = useState("");
  const [pack, setPack] = useState("");
  const [template, setTemplate] = useState("{category}/{yyyy}/{name}{ext}");
  const preview = previewNamingTemplate(template, source.trim() === "" ? "/source" : source.trim());
  const start = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/jobs/analyze", {
          body: {
            source_dir: source.trim(),
            ...(output.trim() === "" ? {} : { output_dir: output.trim() }),
            naming_template: template,
            ...(pack === "" ? {} : { strategy_pack_id: pack }),
          },
        }),
      ),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ["fileorg", "jobs"] });
      await navigate({ to: "/files" });
    },
  });
  const choosePack = (id: string) => {
    setPack(id);
    const found = packs.data?.items.find((p) => p.id === id);
    if (found !== undefined) setTemplate(found.naming_template);
  };
  return (
    <form
      className="card analyze-form"
      aria-label="Start an analyze"
      onSubmit={(e) => {
        e.preventDefault();
        if (preview.ok) start.mutate();
      }}
    >
      <h2>Analyze a folder</h2>
      <label>
        Folder to analyze (inside the allowed roots)
        <input name="source_dir" value={source} onChange={(e) => setSource(e.target.value)} required />
      </label>
      <label>
        Output folder (default: the folder itself)
        <input name="output_dir" value={output} onChange={(e) => setOutput(e.target.value)} />
      </label>
      <label>
        Strategy pack
        <select name="strategy_pack" value={pack} onChange={(e) => choosePack(e.target.value)}>
          <option value="">The active pack</option>
          {(packs.data?.items ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
              {p.active ? " (active)" : ""}
            </option>
          ))}
        </select>
      </label>
      <label>
        Naming template
        <input
          name="naming_template"
          value={template}
          onChange={(e) => setTemplate(e.target.value)}
          aria-invalid={!preview.ok}
          aria-describedby="naming-preview"
        />
      </label>
      <div id="naming-preview" aria-live="polite" className="naming-preview">
        {preview.ok ? (
          <ul aria-label="Sample targets">
            {preview.targets.map((t) => (
              <li key={t}>
                <code>{t}</code>
              </li>
            ))}
          </ul>
        ) : (
          <p className="field-error">{preview.message}</p>
        )}
      </div>
      <button type="submit" disabled={!preview.ok || start.isPending}>
        Analyze
      </button>
      {start.isError ? <ErrorState error={start.error} title="The analyze was refused" /> : null}
    </form>
  );
}
