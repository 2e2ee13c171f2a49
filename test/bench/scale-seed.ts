/**
 * Seeds one company straight through SQL (generate_series): `n` clients, `n` orders (projects with their
 * default invoice; 4 in 5 with a deadline), about 1.01·n invoice lines, payments on two orders of three
 * (one in full, one in part) and n/10 catalog items, with realistic names, emails,
 * phones and product titles, created over three years, and about 1 % of each soft-deleted at spread times.
 * Every value is a function of the row number, so two runs seed the same data.
 */
import type pg from "pg";

const FIRST = `{James,Mary,Robert,Patricia,John,Jennifer,Michael,Linda,David,Elizabeth,William,Barbara,Richard,Susan,Joseph,Jessica,Thomas,Sarah,Charles,Karen,Christopher,Lisa,Daniel,Nancy,Matthew,Betty,Anthony,Margaret,Mark,Sandra,Donald,Ashley,Steven,Kimberly,Paul,Emily,Andrew,Donna,Joshua,Michelle,Kevin,Amanda,Brian,Melissa,Maya,Tom,Wei,Ana,Luis,Priya,Omar,Yuki,Chen,Fatima,Diego,Grace,Ivan,Noor,Sofia,Kwame}`;
const LAST = `{Smith,Johnson,Williams,Brown,Jones,Garcia,Miller,Davis,Rodriguez,Martinez,Hernandez,Lopez,Gonzalez,Wilson,Anderson,Thomas,Taylor,Moore,Jackson,Martin,Lee,Perez,Thompson,White,Harris,Sanchez,Clark,Ramirez,Lewis,Robinson,Walker,Young,Allen,King,Wright,Scott,Torres,Nguyen,Hill,Flores,Green,Adams,Nelson,Baker,Hall,Rivera,Campbell,Mitchell,Carter,Roberts,Becker,Wu,Ng,Patel,Kim,Okafor,Schmidt,Rossi,Dubois,Novak}`;
const TRADE = `{Print Co.,Athletics,Bakery,Brewing,Apparel,Academy,Church,Dental,Fitness,Landscaping,Realty,Roofing,Soccer Club,Robotics Team,Booster Club,Auto Repair,Coffee Roasters,Marathon,Youth League,Family Reunion}`;
const SUFFIX = `{Inc,LLC,"",Co,Group,"",Ltd,Partners}`;
const DOMAIN = `{example.com,mail.example,shop.example,team.example,school.example}`;
const BRAND = `{Gildan,Bella+Canvas,Next Level,Comfort Colors,Port & Company,Champion,Independent,Sport-Tek,Hanes,Jerzees}`;
const PRODUCT = `{Heavy Cotton Tee,Softstyle Tee,Pullover Hoodie,Crewneck Sweatshirt,Sport Polo,Tank Top,Long Sleeve Tee,Knit Beanie,Canvas Tote,Trucker Hat}`;
const COLOR = `{Navy,Black,White,Sport Grey,Red,Royal,Forest Green,Maroon,Charcoal,Sand}`;
const DECORATION = `{Screen print 1 color front,Screen print 2 colors front and back,Embroidery left chest,DTG full front,Heat transfer sleeve,Vinyl names and numbers}`;

/** Terms the benchmark searches for, with how often the seed uses them (share of live clients). */
export const SEED_TERMS = {
  /** One character in 99 % of clients. */
  oneChar: "a",
  /** Two characters in 41 %. */
  twoChars: "ma",
  /** Two characters in none. */
  twoCharsNone: "zq",
  /** A two-letter last name among the 60, in ~3 %. */
  surname: "wu",
  /** A two-letter last name on 1 client of every 9,973. */
  rareSurname: "xu",
  /** In ~3.3 % (one of 60 last names, in the company name and the contact). */
  commonClient: "smith",
  /** In exactly 300 clients of every company, whatever its size. */
  sameCountClient: "kestrel",
  /** In 1 client of every 10,007. */
  rareClient: "quasar",
  /** A phone fragment: 1 client of every 10,000. */
  phone: "555-0142",
  /** In no client, though its 3-grams are common (Mary, Martinez, Garcia …). */
  noClient: "maria",
  /** In ~10 % of catalog titles and ~20 % of invoice lines (a line's number is mostly odd, which favours it). */
  commonProduct: "sweatshirt",
  /** In ~3 % of invoice lines (the description of 1 odd line number in 33) and no catalog title. */
  fewProduct: "glitter",
  /** In ~10 % of catalog titles and ~1 % of invoice lines (every second line of an invoice, 1 invoice in 100). */
  oneInHundredProduct: "hoodie",
  /** In no catalog title and ~0.33 % of invoice lines (the description of a third of the `hoodie` lines): a
   * term whose page the product search's walk of the newest lines finds near its bound. */
  crossoverProduct: "embroidery",
  /** In 1 catalog title of every 997 and about 1 invoice line of every 1,000. */
  rareProduct: "carhartt",
};

const pick = (list: string, expr: string) => `((${`'${list}'::text[]`})[1 + ((${expr}) % cardinality('${list}'::text[]))])`;

/** Seeds `n` rows per table for a new company named `name`; returns its id. */
export async function seedCompany(client: pg.ClientBase, name: string, n: number, log: (m: string) => void): Promise<number> {
  await client.query("begin");
  const {
    rows: [{ id: companyId }],
  } = await client.query<{ id: number }>("insert into companies (name) values ($1) returning id", [name]);
  const step = (3 * 365 * 24 * 3600) / n; // seconds between rows: n rows over three years, the newest now
  const at = (i: string) => `(now() - make_interval(secs => ($2::int - ${i}) * ${step}))`;
  const deletedAt = (i: string, created: string) => `(case when ${i} % 97 = 0 then ${created} + make_interval(days => ${i} % 300) end)`;
  const run = async (what: string, text: string, params: unknown[]) => {
    const started = Date.now();
    const res = await client.query(text, params);
    log(`  ${name}: ${what} ${res.rowCount} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };

  await run(
    "order statuses",
    `insert into order_statuses (company_id, name, position)
     select $1, s, p - 1 from unnest('{Quote,Approved,Ordered,In production,Shipped,Done}'::text[]) with ordinality as t(s, p)`,
    [companyId],
  );
  await run(
    "clients",
    `insert into clients (company_id, company_name, first_name, last_name, email, phone, created_at, updated_at, deleted_at)
     select $1,
       case when i % 10007 = 0 then 'Quasar Zephyr ' || i
         when i % greatest($2::int / 300, 1) = 0 and i / greatest($2::int / 300, 1) <= 300 then 'Kestrel Outfitters ' || i
         else btrim(${pick(LAST, "i * 7")} || ' ' || ${pick(TRADE, "i / 3")} || ' ' || ${pick(SUFFIX, "i / 11")}) end,
       ${pick(FIRST, "i * 13")}, case when i % 9973 = 0 then 'Xu' else ${pick(LAST, "i * 31 + 5")} end,
       lower(${pick(FIRST, "i * 13")} || '.' || ${pick(LAST, "i * 31 + 5")} || i || '@' || ${pick(DOMAIN, "i")}),
       '(' || (200 + i % 800) || ') 555-' || lpad((i % 10000)::text, 4, '0'),
       ${at("i")}, ${at("i")}, ${deletedAt("i", at("i"))}
     from generate_series(1, $2::int) i`,
    [companyId, n],
  );
  await run(
    "orders",
    `with c as (select min(id) as first, count(*) as n from clients where company_id = $1),
          s as (select array_agg(id order by position) as ids from order_statuses where company_id = $1)
     insert into projects (company_id, client_id, title, description, status_id, deadline, created_at, updated_at, deleted_at)
     select $1, c.first + (i::bigint * 7919) % c.n,
       ${pick(LAST, "i * 3")} || ' ' || ${pick(PRODUCT, "i")} || ' order ' || i,
       case when i % 3 = 0 then 'Rush: needed for the ' || ${pick(TRADE, "i")} || ' event' end,
       s.ids[1 + i % 6],
       case when i % 5 <> 0 then (${at("i")} + make_interval(days => 7 + i % 60))::date end,
       ${at("i")}, ${at("i")}, ${deletedAt("i", at("i"))}
     from generate_series(1, $2::int) i, c, s`,
    [companyId, n],
  );
  await run(
    "invoices",
    `insert into invoices (company_id, project_id, client_id, created_at, updated_at, deleted_at)
     select company_id, id, client_id, created_at, updated_at, deleted_at from projects where company_id = $1`,
    [companyId],
  );
  // Statistics for the rows so far: the statement triggers that keep the orders' payment status plan with them.
  await client.query("analyze projects, invoices");
  // One line per invoice, a second on every 100th: about 1.01·n.
  const title = (i: string) =>
    `case when ${i} % 997 = 0 then 'Carhartt Workwear Pocket Tee' else ${pick(BRAND, `${i} / 10`)} || ' ' || ${pick(PRODUCT, i)} || ' - ' || ${pick(COLOR, `${i} / 7`)} end`;
  await run(
    "invoice lines",
    `insert into invoice_items (company_id, invoice_id, title, description, quantity, unit_price, position, created_at, updated_at, deleted_at)
     select v.company_id, v.id, ${title("k")},
       case when k % 33 = 0 then 'Glitter vinyl front' when k % 4 <> 0 then ${pick(DECORATION, "k")} end,
       12 + k % 96, (6 + k % 20)::numeric + 0.5, x, v.created_at, v.created_at, ${deletedAt("k", "v.created_at")}
     from (select row_number() over (order by id) as r, id, company_id, created_at from invoices where company_id = $1) v
     cross join lateral generate_series(1, case when v.r % 100 = 0 then 2 else 1 end) x
     cross join lateral (select (v.r * 2 + x)::int as k) kk`,
    [companyId],
  );
  await client.query("analyze invoice_items");
  // A third of the orders paid in full, a third in part, a third not at all (payment_status).
  await run(
    "payments",
    `insert into payments (company_id, invoice_id, amount, paid_date, created_at, updated_at)
     select v.company_id, v.id, case when v.r % 3 = 0 then 100000 else 1 end, v.created_at::date, v.created_at, v.created_at
     from (select row_number() over (order by id) as r, id, company_id, created_at from invoices where company_id = $1) v
     where v.r % 3 <> 1`,
    [companyId],
  );
  await run(
    "catalog items",
    `insert into catalog_items (company_id, title, sku, unit_price, category, created_at, updated_at, deleted_at)
     select $1, ${title("i")}, 'SKU-' || i, (6 + i % 20)::numeric + 0.5, ${pick(PRODUCT, "i")}, ${at("i * 10")}, ${at("i * 10")}, ${deletedAt("i", at("i * 10"))}
     from generate_series(1, greatest($2::int / 10, 1)) i`,
    [companyId, n],
  );
  await client.query("commit");
  return companyId;
}
